"""threadpoolctl support: the package's thread pool as a library threadpoolctl controls.

``threadpoolctl.threadpool_info()`` lists it (``user_api`` and ``internal_api``
"stringdtype") and ``threadpoolctl.threadpool_limits(limits=n)`` sets the number of threads
that large calls use. threadpoolctl finds the extension among the loaded shared libraries
by the two C functions it exports (the file name, ``_core...``, is common to many
packages). Imported by the package only when threadpoolctl (3.5 or later, which accepts
third-party controllers) is installed.
"""

from importlib import metadata

import threadpoolctl


class StringDTypeController(threadpoolctl.LibController):
    """The thread pool of stringdtype's loops (docs/design.md, "The thread pool")."""

    user_api = "stringdtype"
    internal_api = "stringdtype"
    filename_prefixes = ("_core",)
    check_symbols = ("stringdtype_get_num_threads", "stringdtype_set_num_threads")

    def get_num_threads(self):
        return self.dynlib.stringdtype_get_num_threads()

    def set_num_threads(self, num_threads):
        self.dynlib.stringdtype_set_num_threads(int(num_threads))

    def get_version(self):
        try:
            return metadata.version("stringdtype")
        except metadata.PackageNotFoundError:
            return None


threadpoolctl.register(StringDTypeController)
