"""A pandas string column stored in this package's dtype (``dtype="stringdtype"``).

>>> import pandas as pd
>>> import stringdtype.pandas  # registers "stringdtype" with pandas
>>> s = pd.Series(["apple", None, "straße"], dtype="stringdtype")
>>> s.str.upper().tolist()
['APPLE', nan, 'STRASSE']

The column is a NumPy array of ``StringDType(na_object=np.nan)`` and follows the missing
value semantics of pandas' default ``str`` dtype (its NaN variant): a missing element is
``np.nan``, comparisons and boolean ``.str`` methods give NumPy ``bool`` (``False`` where
missing, ``True`` for ``!=``), numeric ``.str`` methods give ``int64``, or ``float64``
with ``NaN`` where missing. See docs/pandas.md.

Importing this module registers the dtype; ``import stringdtype`` imports it when pandas
is already imported.
"""

import pandas as _pandas

if tuple(int(part) for part in _pandas.__version__.split(".")[:2]) < (2, 3):
    raise ImportError(f"stringdtype.pandas needs pandas >= 2.3, not {_pandas.__version__}")

from ._array import StringDTypeArray, StringDTypePandasDtype

__all__ = ["StringDTypeArray", "StringDTypePandasDtype"]
