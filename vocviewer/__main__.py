"""``python -m vocviewer`` and the ``vocviewer`` script run the command line (``run``)."""

import gc


def run() -> int:
    """``cli.main``, imported with the cyclic collector paused: the command's imports make
    lasting objects and no garbage, so collecting during them is wasted time (a few ms); they
    are then frozen (never traversed again in this process) and collection resumes."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        from vocviewer.cli import main

        gc.freeze()
    finally:
        if collecting:
            gc.enable()
    return main()


# helper processes (``gui.models.helper_process``) import this module too: only a run executes main
if __name__ == "__main__":
    raise SystemExit(run())
