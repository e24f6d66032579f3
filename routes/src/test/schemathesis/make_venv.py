"""Makes a Python virtual environment of pinned requirements, as the build's own step: the one OpenApiFuzzTest runs
Schemathesis from, and the e2e module's one of the Kubeflow Python SDK (bench/sdk/requirements.txt).

Usage: python3 make_venv.py VENV_DIR REQUIREMENTS_FILE

The environment is made once and kept: when VENV_DIR already holds the packages of REQUIREMENTS_FILE (the copy of it
written there as the last step of an install), nothing is done, so a warm build does not reinstall. A half-made
environment (an install that was interrupted, or failed) has no such copy and is made again from scratch. pip keeps
its downloads in its own cache (~/.cache/pip), so a remake after `mvn clean` downloads nothing.
"""
import pathlib
import shutil
import subprocess
import sys
import venv


def main(venv_dir: str, requirements_file: str) -> None:
    target = pathlib.Path(venv_dir).resolve()
    requirements = pathlib.Path(requirements_file).read_text(encoding="utf-8")
    installed = target / "installed-requirements.txt"
    if installed.is_file() and installed.read_text(encoding="utf-8") == requirements:
        print(f"Python environment up to date: {target}")
        return
    print(f"Making the Python environment {target} from {requirements_file}")
    shutil.rmtree(target, ignore_errors=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    subprocess.run([str(target / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                    "--no-input", "--quiet", "-r", str(pathlib.Path(requirements_file).resolve())], check=True)
    # written last: its presence says the install finished
    installed.write_text(requirements, encoding="utf-8")
    print(f"Python environment made: {target}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
