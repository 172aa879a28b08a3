"""mx.gluon.contrib.cnn: deformable convolution layers."""
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution  # noqa: F401

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]
