"""`python -m bench.corpus check FILE…` validates corpus files; `python -m bench.corpus run …` scores memoryd."""
from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
