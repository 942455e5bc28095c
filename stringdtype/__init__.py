"""A variable-width UTF-8 string dtype for NumPy whose elements are Arrow string views.

>>> import numpy as np
>>> from stringdtype import StringDType
>>> a = np.array(["apple", "a much longer string", None], dtype=StringDType(na_object=None))
>>> a[0] = "pear"
>>> a
array(['pear', 'a much longer string', None], dtype=StringDType(na_object=None))
"""

from . import regex, strings
from ._core import StringDType, StringScalar, from_arrow, memory_info, memory_usage, to_arrow

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
