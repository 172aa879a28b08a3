"""benchmarks/gpu_suite.py on a machine without a GPU: it refuses with status 2 and says
why; its markdown and its docs writer (the tables it puts into docs/performance.md)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))
import gpu_suite  # noqa: E402


def test_without_a_gpu_exits_2_and_says_so(tmp_path):
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), "benchmarks",
                                                     "gpu_suite.py"),
                        "--json", str(tmp_path / "s.json"), "--docs", str(tmp_path / "p.md")],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert p.returncode == 2
    assert "no GPU here" in p.stderr and "--cpu-dry-run" in p.stderr
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "p.md").exists()


RESULT = {"device": "2 x NVIDIA H100", "date": "2026-12-06",
          "consistency": {"max_rel_diff": {"Convolution": 1e-6}},
          "tests": {"summary": "40 passed in 9s"},
          "workloads": {"chained_dot": {"GFLOP/s": {"xnd": 90.0, "jax": 100.0, "xnd/jax": 0.9}}},
          "amp": {"float32": {"loss": 2.0, "step_s": 0.01},
                  "float16": {"loss": 2.002, "rel_diff_vs_fp32": 0.001, "step_s": 0.005}},
          "scaling": {"resnet50": [{"devices": 1, "per_s": 100.0, "efficiency": 1.0},
                                   {"devices": 2, "per_s": 190.0, "efficiency": 0.95}]}}


def test_markdown_tables():
    md = gpu_suite.markdown(RESULT)
    assert "on 2 x NVIDIA H100, 2026-12-06" in md
    assert "| chained_dot | GFLOP/s | 90 | 100 | 0.9 |" in md
    assert "| float16 | 2 | 0.001 | 0.005 |" in md
    assert "| resnet50 | 2 | 190 | 0.95 |" in md and "goal >= 0.93" in md


def test_docs_section_replaced_in_place(tmp_path):
    doc = tmp_path / "perf.md"
    doc.write_text("# Perf\n\n## GPU\n\nold text\n")
    gpu_suite.write_docs(str(doc), "first")
    gpu_suite.write_docs(str(doc), "second")
    text = doc.read_text()
    assert text.count(gpu_suite.BEGIN) == 1 and "second" in text and "first" not in text
    assert text.startswith("# Perf\n\n## GPU\n\nold text\n")
