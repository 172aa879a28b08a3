"""``mx.notebook`` (MXNet's ``mxnet/notebook/``): training-progress helpers for Jupyter.
``bokeh`` is the bokeh package, or, when it is not installed, the placeholder class
MXNet puts there (``Bokeh_Failed_To_Import``)."""
try:
    import bokeh
except ImportError:
    class Bokeh_Failed_To_Import:
        """Stands for bokeh when it is not installed."""
    bokeh = Bokeh_Failed_To_Import
