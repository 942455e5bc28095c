"""``python -m stringdtype.bench``: run the benchmark (``--help`` lists the options)."""

import sys

from stringdtype.bench import main

if __name__ == "__main__":
    sys.exit(main())
