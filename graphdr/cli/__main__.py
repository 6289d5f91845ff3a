"""``python -m graphdr.cli``: the ``graphdr`` command."""

import sys

from .._outputs import forget_handled_interrupts
from .command import main

code = main()
forget_handled_interrupts()  # else a Ctrl-C the command answered could still end it by SIGINT
sys.exit(code)
