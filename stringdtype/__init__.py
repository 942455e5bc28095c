"""A variable-width UTF-8 string dtype for NumPy whose elements are Arrow string views.

>>> import numpy as np
>>> from stringdtype import StringDType
>>> a = np.array(["apple", "a much longer string", None], dtype=StringDType(na_object=None))
>>> a[0] = "pear"
>>> a
array(['pear', 'a much longer string', None], dtype=StringDType(na_object=None))
"""

import sys

from . import regex, strings
from ._core import StringDType, StringScalar, from_arrow, memory_info, memory_usage, to_arrow

try:  # let threadpoolctl see and limit the thread pool (docs/design.md)
    import threadpoolctl as _threadpoolctl
except ImportError:
    pass
else:
    if hasattr(_threadpoolctl, "register"):  # threadpoolctl 3.5 or later
        from . import _threadpool  # noqa: F401

if "pandas" in sys.modules:  # register the pandas dtype "stringdtype" (docs/pandas.md)
    try:
        from . import pandas as _pandas  # noqa: F401
    except ImportError:  # a pandas older than stringdtype.pandas supports
        pass

__all__ = [
    "StringDType",
    "StringScalar",
    "from_arrow",
    "memory_info",
    "memory_usage",
    "regex",
    "strings",
    "to_arrow",
]
