"""``python -m graphdr.cli``: the ``graphdr`` command."""

import signal
import sys

from .._outputs import forget_handled_interrupts
from .command import main

code = main()
forget_handled_interrupts()  # else a Ctrl-C the command answered could still end it by SIGINT
# The command has answered (its files written whole, or none). Python restores SIGINT's
# default action as it closes, so a Ctrl-C in the last moments would end the process by
# SIGINT in place of ``code``; ignored, the status is the command's.
signal.signal(signal.SIGINT, signal.SIG_IGN)
sys.exit(code)
