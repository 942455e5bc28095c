//! String kernels: the algorithms behind `np.strings`, as safe functions over bytes.
