"""Build hook: put xnd-mxnet.pth (xnd.compat.PTH_LINE) at the root of the
wheel, so `import mxnet` works after `pip install .` and after `pip install -e .`
(docs/porting.md)."""
import ast
import os

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "xnd-mxnet.pth"


def pth_line():
    with open(os.path.join("xnd", "compat.py"), encoding="utf-8") as f:
        for node in ast.parse(f.read()).body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PTH_LINE":
                return ast.literal_eval(node.value)
    raise RuntimeError("xnd/compat.py defines no PTH_LINE")


class build_py_with_pth(build_py):
    def run(self):
        super().run()
        # an editable install's wheel holds no build_lib files: setuptools' editable_wheel
        # points `install_lib` at the unpacked wheel, where the .pth goes beside its finder
        where = (self.get_finalized_command("install").install_lib
                 if getattr(self, "editable_mode", False) else self.build_lib)
        os.makedirs(where, exist_ok=True)
        with open(os.path.join(where, PTH), "w", encoding="utf-8") as f:
            f.write(pth_line() + "\n")

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(cmdclass={"build_py": build_py_with_pth})
