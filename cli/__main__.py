import sys

from zipai.cli import main

sys.exit(main())
