"""mx.gluon.contrib.estimator: MXNet 1.9.1's Estimator fit loop and its event handlers.

estimator.py drives the loop, event_handler.py holds the handlers that do the work at
each event (metrics, validation, logging, checkpoints, stopping, the optimizer step),
batch_processor.py computes one batch and utils.py checks metric arguments.
"""
from . import estimator, event_handler, batch_processor  # noqa: F401
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
from .batch_processor import *  # noqa: F401,F403
