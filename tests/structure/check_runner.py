"""The structure tests' shared runner: one of scripts/check-*.py run on a repository root (the repository
or a broken copy of it), its exit status and output compared with what a test expects."""
import subprocess
import sys


def checker(script, failures):
    """run(root, *extra) -> (exit status, stdout + stderr) of `script`; expect(name, root, code, needle,
    *extra) records a failure in `failures` unless the exit status is `code` and the output holds `needle`."""

    def run(root, *extra):
        p = subprocess.run([sys.executable, script, "--root", root, *extra], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def expect(name, root, code, needle, *extra):
        rc, out = run(root, *extra)
        if rc != code or needle not in out:
            failures.append(f"{name}: expected exit {code} and '{needle}', got exit {rc}:\n{out}")
        else:
            print(f"ok: {name}")

    return run, expect
