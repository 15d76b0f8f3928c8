"""``python -m gt4py.infra.cache``: see ``--help``."""

import sys

from gt4py.infra.caching._cli import main


if __name__ == "__main__":
    sys.exit(main())
