"""``python -m meta_mage.cli``: the ``meta-mage`` command."""

import sys

from meta_mage.cli import main

sys.exit(main())
