"""`python -m bench.knowledge`: see run.py."""
from __future__ import annotations

import sys

from .run import main

sys.exit(main())
