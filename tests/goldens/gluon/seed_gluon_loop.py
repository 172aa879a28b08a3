# The Gluon training loop of seed post 000 (LossBuffer), verbatim.
import mxnet as mx
from mxnet import gluon, nd, autograd
import numpy as np
import time # For demonstration

class LossBuffer(object):
    """Simple buffer for storing and retrieving loss, delaying asnumpy()."""
    def __init__(self):
        self._loss_nd_current_iter = None # Stores NDArray loss of current iteration
        self._loss_np_previous_iter = None # Stores NumPy loss from previous iteration

    def log_and_buffer(self, new_loss_nd):
        """Converts previous loss to NumPy, buffers new loss as NDArray, returns previous NumPy loss."""
        # Convert previous iteration's loss (if it exists) to NumPy
        if self._loss_nd_current_iter is not None:
            # This asnumpy() call is on the *previous* iteration's loss.
            # It might overlap with the current iteration's GPU work.
            self._loss_np_previous_iter = np.mean(self._loss_nd_current_iter.asnumpy())
        else:
            self._loss_np_previous_iter = None # No previous loss on first call

        self._loss_nd_current_iter = new_loss_nd # Store current loss (still an NDArray)
        return self._loss_np_previous_iter

# Setup: A simple model, loss, and data
ctx = mx.gpu() if mx.context.num_gpus() > 0 else mx.cpu() # Use GPU if available, else CPU
print(f"Training on: {ctx}")

net = gluon.nn.Dense(10, prefix='dense_') # Output layer for 10 classes
net.initialize(ctx=ctx) # Initialize parameters on the chosen context

loss_fn = gluon.loss.SoftmaxCrossEntropyLoss() # Standard loss for classification

# Dummy data parameters
num_samples = 1024
num_features = 100
num_batches = 8
batch_size = num_samples // num_batches
num_epochs = 1 # For a quick demo

# Create dummy data directly on the target context
data = nd.random.uniform(shape=(num_samples, num_features), ctx=ctx)
label = nd.array(np.random.randint(0, 10, (num_samples,)), ctx=ctx, dtype='int32')

train_dataset = gluon.data.ArrayDataset(data, label)
# Using num_workers > 0 can speed up data loading by using separate processes.
# However, for simplicity or if issues arise, num_workers=0 (loads in main process) is safer.
train_data_loader = gluon.data.DataLoader(train_dataset, batch_size=batch_size, shuffle=True, num_workers=0)

trainer = gluon.Trainer(net.collect_params(), optimizer='sgd', optimizer_params={'learning_rate': 0.01})

loss_buffer = LossBuffer()

for epoch in range(num_epochs):
    epoch_start_time = time.time()
    cumulative_loss_sum_for_epoch = 0
    num_samples_in_epoch = 0

    for i, (batch_data, batch_label) in enumerate(train_data_loader):
        # Data might be on CPU from DataLoader if num_workers > 0; ensure it's on target context
        batch_data = batch_data.as_in_context(ctx)
        batch_label = batch_label.as_in_context(ctx)

        with autograd.record(): # Start recording computations for gradient calculation
            output = net(batch_data)
            current_batch_loss_nd = loss_fn(output, batch_label) # Loss is an NDArray on ctx

        # This call saves the new NDArray loss and returns the *previous* iteration's loss as NumPy
        previous_avg_loss_np = loss_buffer.log_and_buffer(current_batch_loss_nd)

        current_batch_loss_nd.backward() # Backpropagate based on current_batch_loss_nd
        trainer.step(batch_data.shape[0]) # Update model parameters

        if previous_avg_loss_np is not None:
            # Print the average loss from the *previous* iteration (already converted)
            print(f"Epoch {epoch}, Batch {i-1}: Prev. Iter. Avg Batch Loss: {previous_avg_loss_np:.4f}")

        # Accumulate current batch's loss for epoch average (on NDArray to avoid blocking)
        # Note: current_batch_loss_nd is typically a vector of losses, one per sample.
        # We sum it here; it will be averaged at the end of epoch.
        cumulative_loss_sum_for_epoch += current_batch_loss_nd.sum()
        num_samples_in_epoch += batch_data.shape[0]

    # After the loop, process the final buffered loss (from the last batch of the epoch)
    final_buffered_avg_loss_np = loss_buffer.log_and_buffer(None) # Clear buffer, get last batch's loss
    if final_buffered_avg_loss_np is not None:
        print(f"Epoch {epoch}, Batch {i}: Prev. Iter. Avg Batch Loss: {final_buffered_avg_loss_np:.4f}")

    # Calculate and print average epoch loss (now we need to block for sum)
    avg_epoch_loss = cumulative_loss_sum_for_epoch.asscalar() / num_samples_in_epoch
    print(f"Epoch {epoch} completed. Avg Epoch Loss: {avg_epoch_loss:.4f}. Time: {time.time() - epoch_start_time:.2f}s.")
