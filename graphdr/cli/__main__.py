"""``python -m graphdr.cli``: the ``graphdr`` command."""

import sys

from .command import main

sys.exit(main())
