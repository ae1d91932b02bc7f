"""Kernel-name families PyTorch writes itself: Inductor's generated Triton kernels (``triton_<kind>_fused_<ops>``)
and ATen's native CUDA kernels."""

from __future__ import annotations

import re

from .kernel_grammar import _cpp_dtype, _Fields, _keyword_op, _Name


_TRITON_KINDS = {"poi": "elementwise", "red": "reduction", "per": "reduction", "tem": "gemm",
                 "for": "elementwise", "spl": "other", "sca": "other", "unk": "other"}
# ATen op names with underscores inside, joined back when splitting Inductor kernel names.
_ATEN_MULTIWORD = frozenset({
    "native_layer_norm", "native_layer_norm_backward", "native_batch_norm",
    "native_batch_norm_backward", "native_group_norm", "native_group_norm_backward",
    "_native_batch_norm_legit", "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training", "native_dropout", "native_dropout_backward",
    "_to_copy", "_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data",
    "log_softmax", "layer_norm", "group_norm", "batch_norm", "rms_norm", "_fused_rms_norm",
    "masked_fill", "index_put", "_unsafe_index_put", "_unsafe_index", "index_add", "index_select",
    "index_copy", "lift_fresh", "lift_fresh_copy", "embedding_dense_backward", "convolution_backward",
    "scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
    "flex_attention", "flex_attention_backward", "_unsafe_view", "constant_pad_nd", "avg_pool2d",
    "avg_pool2d_backward", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "_adaptive_avg_pool2d", "_adaptive_avg_pool2d_backward", "adaptive_avg_pool2d",
    "upsample_nearest2d", "upsample_bilinear2d", "_upsample_nearest_exact2d", "select_backward",
    "slice_backward", "select_scatter", "slice_scatter", "as_strided", "as_strided_scatter",
    "threshold_backward", "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward",
    "hardtanh_backward", "leaky_relu_backward", "nll_loss_forward", "nll_loss_backward",
    "nll_loss2d_forward", "nll_loss2d_backward", "var_mean", "clamp_min", "clamp_max",
    "split_with_sizes", "scatter_add", "scatter_reduce", "bitwise_and", "bitwise_or",
    "bitwise_not", "bitwise_xor", "logical_and", "logical_or", "logical_not", "zeros_like",
    "ones_like", "full_like", "empty_like", "new_zeros", "new_ones", "new_empty", "scalar_tensor",
    "full_default", "_scaled_mm", "diagonal_copy", "permute_copy", "view_copy", "expand_copy",
    "reflection_pad2d", "replication_pad2d", "_weight_norm_interface", "cross_entropy",
    "_prims_common", "convert_element_type",
})
_TRITON_INDEX = re.compile(r"\d[0-9de]*\Z")
_SOFTMAX_OP = re.compile(r"softmax")
_NORM_OP = re.compile(r"(?:^|_)(?:layer|batch|group|rms|instance)_norm|native_\w*norm|_norm_legit")


def _triton_ops(tokens: list[str]) -> tuple[str, ...]:
    ops: list[str] = []
    i = 0
    while i < len(tokens):
        underscores = 0
        while i < len(tokens) and tokens[i] == "":
            underscores += 1
            i += 1
        if i >= len(tokens):
            break
        prefix = "_" * underscores
        for width in range(min(6, len(tokens) - i), 1, -1):
            candidate = prefix + "_".join(tokens[i:i + width])
            if "" not in tokens[i:i + width] and candidate in _ATEN_MULTIWORD:
                ops.append(candidate)
                i += width
                break
        else:
            ops.append(prefix + tokens[i])
            i += 1
    return tuple(ops)


def _triton(n: _Name, m: re.Match[str]) -> _Fields | None:
    rest = n.base[len("triton_"):] if n.base.startswith("triton_") else n.text[len("triton_"):]
    tokens = rest.split("_")
    kind = tokens.pop(0) if tokens and tokens[0] in _TRITON_KINDS else None
    fused = bool(tokens) and tokens[0] == "fused"
    if fused:
        tokens.pop(0)
    while tokens and _TRITON_INDEX.match(tokens[-1]):
        tokens.pop()
    ops = _triton_ops(tokens) if fused else ()
    joined = "_".join(ops)
    if kind is None:
        op = _keyword_op(rest)
    elif kind == "tem":
        if any("attention" in o or "sdpa" in o for o in ops):
            op = "attention"
        elif any(o.startswith("convolution") for o in ops):
            op = "conv"
        else:
            op = "gemm"
    else:
        op = _TRITON_KINDS[kind]
        if any(_SOFTMAX_OP.search(o) for o in ops):
            op = "softmax"
        elif _NORM_OP.search(joined) or any(_NORM_OP.search(o) for o in ops):
            op = "norm"
    return {"op": op, "fused_ops": ops}


_ATEN_KERNELS = frozenset({
    "vectorized_elementwise_kernel", "unrolled_elementwise_kernel", "elementwise_kernel",
    "elementwise_kernel_with_index", "index_elementwise_kernel", "vectorized_templated_elementwise_kernel",
    "distribution_elementwise_grid_stride_kernel", "reduce_kernel", "softmax_warp_forward",
    "softmax_warp_backward", "cunn_SoftMaxForward", "cunn_SoftMaxForwardSmem", "cunn_SoftMaxBackward",
    "cunn_SpatialSoftMaxForward", "cunn_SpatialSoftMaxBackward", "vectorized_layer_norm_kernel",
    "RowwiseMomentsCUDAKernel", "LayerNormForwardCUDAKernel", "GammaBetaBackwardCUDAKernel",
    "GammaBetaBackwardSimpleCUDAKernel", "layer_norm_grad_input_kernel",
    "layer_norm_grad_input_kernel_vectorized", "batch_norm_collect_statistics_kernel",
    "batch_norm_transform_input_kernel", "batch_norm_backward_kernel",
    "batch_norm_backward_reduce_kernel", "batch_norm_backward_elemt_kernel",
    "CatArrayBatchedCopy", "CatArrayBatchedCopy_contig", "CatArrayBatchedCopy_aligned16_contig",
    "CatArrayBatchedCopy_alignedK_contig", "CatArrayBatchedCopy_vectorized",
    "multi_tensor_apply_kernel", "indexSelectSmallIndex", "indexSelectLargeIndex",
    "indexFuncSmallIndex", "indexFuncLargeIndex", "indexing_backward_kernel", "radixSortKVInPlace",
    "bitonicSortKVInPlace", "gatherTopK", "fused_dropout_kernel", "fused_dropout_kernel_vec",
    "triu_tril_kernel", "embedding_backward_feature_kernel", "nll_loss_forward_reduce_cuda_kernel_2d",
    "nll_loss_backward_reduce_cuda_kernel_2d", "cunn_ClassNLLCriterion_updateOutput_kernel",
    "max_pool_forward_nchw", "max_pool_backward_nchw", "avg_pool2d_out_cuda_frame",
    "upsample_bilinear2d_out_frame", "upsample_nearest2d_out_frame", "im2col_kernel", "col2im_kernel",
})
_ATEN_NAMESPACE = re.compile(r"^(?:at|at_cuda_detail|caffe2)::")
_ATEN_OPS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (op, re.compile(pattern, re.IGNORECASE)) for op, pattern in (
        ("softmax", r"softmax"),
        ("norm", r"layer_?norm|batch_?norm|group_?norm|rms_?norm|RowwiseMoments|GammaBeta"
                 r"|ComputeInternalGradients|weight_norm"),
        ("elementwise", r"elementwise|CatArrayBatchedCopy|multi_tensor_apply|index(?:Select|Func|ing)"
                        r"|fused_dropout|triu_tril|upsample|copy|fill|im2col|col2im"),
        ("reduction", r"reduce|nll_loss|NLLCriterion|(?:^|_)(?:sum|mean)(?:_|$)"),
    ))


def _pytorch(n: _Name, m: re.Match[str]) -> _Fields | None:
    op = next((o for o, pattern in _ATEN_OPS if pattern.search(n.base)), None)
    if op is None:
        op = _keyword_op(n.base)
    return {"op": op, "dtype": _cpp_dtype(n.targs)}
