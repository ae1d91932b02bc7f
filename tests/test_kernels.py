"""Tests for measurefirst.profiling.kernels: decoding GPU kernel names from traces.

The names below are real: copied from public torch.profiler / nsys / nvprof output in the GitHub
issues and repositories cited next to each group (a few parameter lists are elided with `...`,
exactly as profiler tables truncate them). Each case states every decoded field.
"""

from __future__ import annotations

import json
import random
import string
import time

import pytest

from measurefirst.profiling.kernels import (
    DTYPES,
    LIBRARIES,
    OPS,
    KernelInfo,
    decode_kernel,
    decode_many,
)


def K(library: str, op: str | None, arch: str | None = None, dtype: str | None = None,
      tile: str | None = None, layout: str | None = None, tc: bool | None = None,
      fused: tuple[str, ...] = ()) -> dict[str, object]:
    """Expected fields of one decoded name (everything but the name itself)."""
    return {"library": library, "op": op, "arch": arch, "dtype": dtype, "tile": tile,
            "layout": layout, "tensor_cores": tc, "fused_ops": list(fused)}


CASES: list[tuple[str, dict[str, object]]] = [
    # --- CUTLASS 2.x procedural names --------------------------------------------------------
    # Grammar and the first name: NVIDIA/cutlass media/docs/profiler.md (procedural names).
    ("cutlass_tensorop_s1688gemm_f16_256x128_32x2_tn_align8",
     K("cutlass", "gemm", None, "f16", "256x128", "tn", True)),
    # NVIDIA/cutlass#896 (profiler output)
    ("cutlass_tensorop_h16816gemm_128x128_32x5_nn_align8",
     K("cutlass", "gemm", None, "f16", "128x128", "nn", True)),
    # NVIDIA/cutlass#211 (profiler output): SIMT fp32
    ("cutlass_simt_sgemm_32x128_8x2_tn_align1",
     K("cutlass", "gemm", None, "f32", "32x128", "tn", False)),
    # NVIDIA/cutlass#206: tf32 inputs with fp32 accumulate
    ("cutlass_tensorop_s1688gemm_tf32_256x128_16x3_tt_align4",
     K("cutlass", "gemm", None, "tf32", "256x128", "tt", True)),
    # NVIDIA/cutlass#1587: complex fp32 -> no real dtype
    ("cutlass_tensorop_c1688gemm_128x64_16x3_nn_align1",
     K("cutlass", "gemm", None, None, "128x64", "nn", True)),
    # pytorch/pytorch#181718: cuBLAS-embedded CUTLASS kernels as torch.profiler shows them
    ("cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_nn_align8>",
     K("cutlass", "gemm", "sm80", "bf16", "64x64", "nn", True)),
    ("cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1>",
     K("cutlass", "gemm", "sm75", "bf16", "128x128", "nn", True)),
    # pytorch/pytorch#167503 (torch profiler table, fp32 backward)
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(T1::Params)",
     K("cutlass", "gemm", "sm80", "f32", "128x256", "nt", False)),
    # public nsys table (vLLM-style workload); wmma tensor-op variant
    ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(T1::Params)",
     K("cutlass", "gemm", "sm80", "bf16", "32x32", "tn", True)),

    # --- CUTLASS 3.x ------------------------------------------------------------------------------
    # pytorch/pytorch#153335 (Inductor CUTLASS backend autotuning log)
    ("cutlass3x_sm90_tensorop_s64x256x16gemm_bf16_bf16_f32_void_bf16_128x256x64_1x2x1_0_tnn_align8"
     "_stream_k_warpspecialized_cooperative_epi_tma",
     K("cutlass", "gemm", "sm90", "bf16", "128x256x64", "tnn", True)),
    # NVIDIA/cutlass#947
    ("cutlass3x_sm90_tensorop_h64x128x16gemm_f16_f16_f16_void_f16_128x128x64_1x1x1_0_nnn_align8",
     K("cutlass", "gemm", "sm90", "f16", "128x128x64", "nnn", True)),
    # the form named in NVIDIA/cutlass media/docs/profiler.md (CUTLASS 3.0 GEMM procedural names)
    ("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_1x1x1_0_tnn_align8"
     "_warpspecialized_cooperative_epi_tma",
     K("cutlass", "gemm", "sm90", "f16", "128x128x64", "tnn", True)),

    # CUTLASS as C++ templates (nsys with demangling off shows the mangled form; public trace table)
    ("_ZN7cutlass6KernelINS_4conv6kernel38ImplicitGemmConvolutionFusionPerSamp", K("cutlass", "conv")),
    # CUTLASS 3 kernel as torch.profiler prints it (abridged; vLLM/sglang-style scaled-mm builds)
    ("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
     "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4, "
     "cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, "
     "cutlass::gemm::KernelTmaWarpSpecializedCooperative>, cute::tuple<cute::C<128>, cute::C<128>, "
     "cute::C<64> >, cutlass::bfloat16_t, ...> > >(...)",
     K("cutlass", "gemm", "sm90", "bf16", tc=True)),

    # --- cuBLAS generation-prefixed kernels ---------------------------------------------------
    # nsys tables in public repos (e.g. ampere_sgemm_128x64_tn, fp32 Linear on A100)
    ("ampere_sgemm_128x64_tn", K("cublas", "gemm", "sm80", "f32", "128x64", "tn", False)),
    # NVIDIA/cutlass#211
    ("volta_sgemm_128x32_sliced1x4_tn", K("cublas", "gemm", "sm70", "f32", "128x32", "tn", False)),
    # JuliaGPU/CuArrays.jl#182 (nvprof)
    ("maxwell_sgemm_128x64_nn", K("cublas", "gemm", "sm50", "f32", "128x64", "nn", False)),
    # nsys/ncu output in public repos (volta_h884gemm_* family)
    ("volta_h884gemm_64x64_nt", K("cublas", "gemm", "sm70", "f16", "64x64", "nt", True)),
    ("volta_fp16_s884gemm_fp16_256x128_ldg8_f2f_nn",
     K("cublas", "gemm", "sm70", "f16", "256x128", "nn", True)),
    ("turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn",
     K("cublas", "gemm", "sm75", "f16", "256x128", "tn", True)),
    # pytorch/pytorch#108277
    ("ampere_fp16_s16816gemm_fp16_128x256_ldg8_f2f_stages_64x3_tn",
     K("cublas", "gemm", "sm80", "f16", "128x256", "tn", True)),
    # pytorch/pytorch#181718
    ("ampere_bf16_s1688gemm_bf16_128x128_ldg8_f2f_stages_32x1_nn",
     K("cublas", "gemm", "sm80", "bf16", "128x128", "nn", True)),
    ("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn",
     K("cublas", "gemm", "sm80", "bf16", "128x64", "tn", True)),

    # --- cuBLAS / cuBLASLt XMMA and nvjet ---------------------------------------------------------
    # public code (CUDA-graph kernel allow-list) and nsys tables
    ("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     K("cublas", "gemm", "sm80", "f16", "128x128x32", "tn", True)),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"
     "_execute_segment_k_off_kernel__5x_cublas",
     K("cublas", "gemm", "sm90", "bf16", "128x128x64", "tn", True)),
    ("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1"
     "_execute_segment_k_off_kernel__5x_cublas",
     K("cublas", "gemm", "sm90", "tf32", "128x128x32", "tn", True)),
    # pytorch/pytorch#167503: fp32 FFMA kernel (no tensor cores)
    ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma",
     K("cublas", "gemm", "sm80", "f32", "128x64x8", "tn", False)),
    # FlashInfer profile tables (H100, bf16 model) / torch.profiler
    ("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_TNN",
     K("cublasLt", "gemm", None, "f16", "128x256", "TNN", True)),
    # pytorch/pytorch#161134: bf16 F.linear on B200 / H200 -> "t" is bf16
    ("nvjet_tst_16x64_64x16_4x1_v_bz_TNN",
     K("cublasLt", "gemm", None, "bf16", "16x64", "TNN", True)),
    ("nvjet_tst_64x8_64x16_4x1_v_bz_TNT",
     K("cublasLt", "gemm", None, "bf16", "64x8", "TNT", True)),
    # cuBLASLt 13.x split-K repro in a public repo: arch-tagged nvjet names
    ("nvjet_sm90_hss_64x8_64x16_1x1_h_bz_splitK_NNT",
     K("cublasLt", "gemm", "sm90", "f16", "64x8", "NNT", True)),
    # nsys summary of a torch._scaled_mm fp8 run (public repo)
    ("nvjet_qqtst_128x256_128x6_2x1_2cta_v_bz_TNT",
     K("cublasLt", "gemm", None, "fp8", "128x256", "TNT", True)),
    # same repro: the reduction half of cuBLASLt split-K
    ("cublasLt::splitKreduce_kernel<32, 16, int, float, ...>", K("cublasLt", "gemm")),
    # gemv: public torch.profiler / nvprof dumps (TensorFlow profile, decode benchmarks)
    ("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
     "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
     "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >"
     "(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
     "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, "
     "float, float)",
     K("cublas", "gemv", dtype="f32")),
    ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, __half, __half, __half, "
     "float, false, true, true, false, 6, false, cublasGemvParamsEx<int, "
     "cublasGemvTensorStridedBatched<__half const>, cublasGemvTensorStridedBatched<__half const>, "
     "cublasGemvTensorStridedBatched<__half>, float> >(...)",
     K("cublas", "gemv", dtype="f16")),
    ("void gemv2T_kernel_val<int, int, float2, float2, float2, float2, 128, 16, 2, 2, false, false, "
     "cublasGemvParams<cublasGemvTensorStridedBatched<float2 const>, "
     "cublasGemvTensorStridedBatched<float2 const>, cublasGemvTensorStridedBatched<float2>, float2> >"
     "(...)",
     K("cublas", "gemv", dtype=None)),  # complex: no real dtype
    # pytorch/pytorch#16594 (nvprof, old demangler style)
    ("void gemmSN_TN_kernel<float, float, float, int=128, int=16, int=2, int=4, int=4, int=4, bool=1>"
     "(int, int, int, float const *, int, float const *, int, float*, int, float const *, "
     "float const *, float, float, int, int)",
     K("cublas", "gemm", dtype="f32")),

    # --- cuDNN --------------------------------------------------------------------------------------
    # public nsys tables (VAE / TensorRT conv workloads)
    ("sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x32x32_stage4"
     "_warpsize4x1x1_g1_tensor16x8x16_execute_kernel__5x_cudnn",
     K("cudnn", "conv", "sm80", "f16", "128x32x32", None, True)),
    ("sm86_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32",
     K("cudnn", "conv", "sm86", "bf16", None, None, True)),
    # apache/mxnet#14684 (nvprof)
    ("volta_scudnn_128x128_stridedB_splitK_xregs_large_nn_v1",
     K("cudnn", "conv", "sm70", "f32", "128x128", "nn", False)),
    ("void cudnn::detail::implicit_convolve_sgemm<float, float, int=512, int=6, int=8, int=3, int=3, "
     "int=5, int=1, bool=1, bool=0, bool=1>(int, int, int, float const *, int, float*, "
     "cudnn::detail::implicit_convolve_sgemm<float, float, int=512, int=6, int=8, int=3, int=3, int=5, "
     "int=1, bool=1, bool=0, bool=1>*, kernel_conv_params, int, float, float, int, float, float, int, int)",
     K("cudnn", "conv", dtype="f32")),
    # kblomdahl/dream-go#25 (nvprof)
    ("maxwell_scudnn_winograd_128x128_ldg1_ldg4_relu_tile418n_nt",
     K("cudnn", "conv", "sm50", "f32", "128x128", "nt", False)),
    # cuDNN 8 sub-library prefix: nsys table and torch.profiler output in public repos
    ("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1",
     K("cudnn", "conv", "sm80", "f32", "128x64", "nn", False)),
    ("cudnn_infer_ampere_scudnn_winograd_128x128_ldg1_ldg4_relu_t…",
     K("cudnn", "conv", "sm80", "f32", "128x128", None, False)),
    ("void cudnn::winograd::generateWinogradTilesKernel", K("cudnn", "conv")),
    # pytorch/pytorch#34977 (nvprof): cuDNN kernel recognised by its cudnn* parameter types
    ("void conv2d_grouped_direct_kernel<__half, __half, __half, float, float, bool=1, bool=0, int=1, "
     "int=0, int=0>(cudnnTensorStruct, __half const *, cudnnFilterStruct, __half const *, "
     "cudnnConvolutionStruct, cudnnTensorStruct, __half*, float, float, cudnn::reduced_divisor, int)",
     K("cudnn", "conv", dtype="f16")),
    # public torch.profiler table (ResNet inference, channels-last)
    ("void cudnn::bn_fw_inf_1C11_kernel_NHWC<...>", K("cudnn", "norm")),
    # TensorFlow profile dump in a public repo: CUTLASS shipped inside cuDNN
    ("void cutlass_cudnn::Kernel<cutlass_tensorop_f16_s16816dgrad_optimized_f16_128x256_32x3_unity_stride>"
     "(cutlass_tensorop_f16_s16816dgrad_optimized_f16_128x256_32x3_unity_stride::Params)",
     K("cudnn", "conv", None, "f16", "128x256", None, True)),
    # cuDNN SDPA (torch SDPA cuDNN backend), public nsys/torch.profiler tables
    ("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0",
     K("cudnn", "attention", "sm90", None, "64x128x128", None, True)),
    ("cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_3_64x64x128_4x1x1_kernel0_0",
     K("cudnn", "attention", "sm80", None, "64x64x128", None, True)),

    # --- PyTorch native (ATen) ----------------------------------------------------------------------
    # the GeLU form quoted in the task, as torch.profiler prints it
    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
     "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::"
     "{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, "
     "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::"
     "operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
     "at::detail::Array<char*, 2>)",
     K("pytorch", "elementwise", dtype="f32")),
    # pytorch/pytorch#51382 (nvprof, CUDA 11)
    ("void at::native::unrolled_elementwise_kernel<at::native::DivFunctor<float>, "
     "at::detail::Array<char*, int=3>, OffsetCalculator<int=2, unsigned int>, "
     "OffsetCalculator<int=1, unsigned int>, at::native::memory::LoadWithoutCast, "
     "at::native::memory::StoreWithoutCast>(int, float, at::native::DivFunctor<float>, char*, int=3, "
     "at::detail::Array<char*, int=3>, int=2)",
     K("pytorch", "elementwise", dtype="f32")),
    ("void at::native::reduce_kernel<int=512, int=1, at::native::ReduceOp<float, "
     "at::native::ArgMaxOps<float>, unsigned int, long, int=4>>(float)",
     K("pytorch", "reduction", dtype="f32")),
    ("void _GLOBAL__N__54_tmpxft_0000234c_00000000_11_SoftMax_compute_75_cpp1_ii_a3310042::"
     "softmax_warp_forward<float, float, float, int=6, bool=0>(float*, float const *, int, int, int)",
     K("pytorch", "softmax", dtype="f32")),
    # torch.profiler tables in public repos (H100, mixed precision)
    ("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<c10::BFloat16, "
     "at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, "
     "c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
     "c10::BFloat16, 4, 8> >(...)",
     K("pytorch", "reduction", dtype="bf16")),
    ("void at::native::(anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, float, 7, "
     "false, false>(c10::Half*, c10::Half const*, int, int, int, bool const*, int, bool)",
     K("pytorch", "softmax", dtype="f16")),
    ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, c10::Half, "
     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::Half*, c10::Half const*, int)",
     K("pytorch", "softmax", dtype="f16")),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, "
     "float, float const*, float const*, float const*, float*, float*, float*)",
     K("pytorch", "norm", dtype="f32")),
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 3, 128, 1>("
     "float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
     "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
     K("pytorch", "elementwise", dtype="f32")),
    ("void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<...>",
     K("pytorch", "elementwise")),
    # nsys (cuda_gpu_kern_sum) style: (int)4, <unnamed>, truncated with an ellipsis
    ("void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, std::array<c…",
     K("pytorch", "elementwise", dtype="f32")),
    ("void <unnamed>::softmax_warp_forward<float, float, float, (int)8, (bool)0, (bool)0>(T2 *, const T1 …",
     K("pytorch", "softmax", dtype="f32")),
    # short name as it appears in a public profile summary table
    ("elementwise_kernel<128, 2, ...>", K("pytorch", "elementwise")),
    # pytorch/pytorch source (aten/src/ATen/native/cuda/Normalization.cuh) instantiation
    ("void at::native::batch_norm_collect_statistics_kernel<at::native::InvStd, float, float, float, int>"
     "(...)",
     K("pytorch", "norm", dtype="f32")),
    # nsys shows mangled names when demangling is off (public trace table)
    ("_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy"
     "_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE8_clEvEUlN3c104HalfEE_EEvS4_RKT_EUliE_EEviT1_",
     K("pytorch", "elementwise")),

    # --- Triton / Inductor ------------------------------------------------------------------------
    # names from Inductor output code and profiler tables in public repos
    ("triton_poi_fused_add_mul_tanh_0",
     K("triton", "elementwise", fused=("add", "mul", "tanh"))),
    ("triton_red_fused__softmax_0", K("triton", "softmax", fused=("_softmax",))),
    ("triton_per_fused_native_layer_norm_0", K("triton", "norm", fused=("native_layer_norm",))),
    ("triton_tem_fused_mm_0", K("triton", "gemm", fused=("mm",))),
    ("triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0",
     K("triton", "reduction", fused=("_to_copy", "add", "mean", "mul", "pow", "rsqrt"))),
    ("triton_poi_fused_arange_ge_index_put_lift_fresh_0",
     K("triton", "elementwise", fused=("arange", "ge", "index_put", "lift_fresh"))),
    ("triton_tem_fused__to_copy_addmm_gelu_t_view_9",
     K("triton", "gemm", fused=("_to_copy", "addmm", "gelu", "t", "view"))),
    ("triton_red_fused__softmax__to_copy_logsumexp_mul_sub_sum_0",
     K("triton", "softmax", fused=("_softmax", "_to_copy", "logsumexp", "mul", "sub", "sum"))),
    ("triton_tem_fused_flex_attention_backward_0",
     K("triton", "attention", fused=("flex_attention_backward",))),
    ("triton_gemm_kernel_0d1d2d", K("triton", "gemm")),  # a non-Inductor Triton kernel

    # --- FlashAttention -----------------------------------------------------------------------------
    # Dao-AILab/flash-attention kernel instantiation as nsys prints it
    ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t, "
     "Flash_kernel_traits<128, 128, 64, 4, cutlass::half_t> >, false, false, false, false, true, true, "
     "false>(Flash_fwd_params)",
     K("flash-attention", "attention", dtype="f16", tc=True)),
    ("void flash::flash_fwd_splitkv_kernel<...>", K("flash-attention", "attention", tc=True)),
    # huggingface/blog#3451: FA2 vendored in PyTorch (truncated by the profiler table)
    ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 12...",
     K("flash-attention", "attention", tc=True)),
    # FA3 (Hopper), abridged from a public torch.profiler table
    ("void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
     "flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, "
     "cute::tuple<cute::C<128>, cute::C<80>, cute::C<256> >, 256, cutlass::bfloat16_t, float, "
     "cutlass::arch::Sm90, true, true, true, false, 1>, ...> > >(...)",
     K("flash-attention", "attention", "sm90", "bf16", tc=True)),

    # --- memory-efficient attention (xFormers / PyTorch, CUTLASS-based) ---------------------------
    # public torch.profiler tables and facebookresearch/xformers#1176
    ("fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, "
     "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
     K("cutlass", "attention", "sm80", "f16", "64x64", None, True)),
    ("fmha_cutlassB_f32_aligned_64x64_k32_sm80(AttentionBackwardKernel<...>::Params)",
     K("cutlass", "attention", "sm80", "f32", "64x64", None, True)),
    ("fmha_cutlassF_bf16_aligned_32x128_gmem_sm80",
     K("cutlass", "attention", "sm80", "bf16", "32x128", None, True)),
    # apache/tvm#14798 (nsys): the CUTLASS example's templated form
    ("void attention_kernel_batched_impl<AttentionKernel<cutlass::half_t, cutlass::arch::Sm80, (bool)1, (…",
     K("cutlass", "attention", "sm80", "f16", None, None, True)),

    # --- NCCL -------------------------------------------------------------------------------------
    # public torch.profiler output (DDP training)
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     K("nccl", "collective", dtype="f32")),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", K("nccl", "collective", dtype="bf16")),
    ("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", K("nccl", "collective")),
    # huggingface/blog#1649 (FSDP profile)
    ("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
     K("nccl", "collective", dtype="int8")),
    ("ncclKernel_AllReduce_RING_LL_Sum___nv_bfloat16(ncclDevComm*, unsigned long, ncclWork*)",
     K("nccl", "collective", dtype="bf16")),
    ("ncclKernel_ReduceScatter_RING_LL_Sum_half", K("nccl", "collective", dtype="f16")),

    # --- CUDA runtime activities --------------------------------------------------------------------
    # huggingface/blog#1649 and torch.profiler key_averages tables in public repos
    ("Memcpy HtoD (Pageable -> Device)", K("cuda-runtime", "memcpy")),
    ("Memcpy DtoH (Device -> Pinned)", K("cuda-runtime", "memcpy")),
    ("Memcpy DtoD (Device -> Device)", K("cuda-runtime", "memcpy")),
    ("Memset (Device)", K("cuda-runtime", "memset")),
    # acts-project/vecmem#246 (nsys gpumemsizesum)
    ("[CUDA memcpy HtoD]", K("cuda-runtime", "memcpy")),
    ("[CUDA memset]", K("cuda-runtime", "memset")),
    ("cudaMemcpyAsync", K("cuda-runtime", "memcpy")),
    ("cudaLaunchKernel", K("cuda-runtime", "other")),  # host-side API event in a Kineto trace

    # --- unknown names ----------------------------------------------------------------------------
    ("some_mystery_kernel", K("other", "other")),
    ("_moe_route_fill_kernel", K("other", "other")),
    # FlashInfer: library unknown here, but the name plainly says what it computes
    ("void flashinfer::norm::RMSNormKernel<8u, __half>(__half*, __half*, __half*, unsigned int, "
     "unsigned int, unsigned int, float, float)",
     K("other", "norm")),
]


@pytest.mark.parametrize("name, expected", CASES, ids=[c[0][:60] for c in CASES])
def test_decode_real_kernel_names(name: str, expected: dict[str, object]) -> None:
    got = decode_kernel(name).to_dict()
    assert got.pop("name") == name
    assert got == expected


def test_case_table_is_large_and_spans_every_library() -> None:
    assert len(CASES) >= 40
    assert {e["library"] for _, e in CASES} == set(LIBRARIES)


def test_to_dict_keys_and_json() -> None:
    info = decode_kernel("triton_poi_fused_add_mul_tanh_0")
    d = info.to_dict()
    assert list(d) == ["name", "library", "op", "arch", "dtype", "tile", "layout", "tensor_cores",
                       "fused_ops"]
    assert d["fused_ops"] == ["add", "mul", "tanh"] and isinstance(d["fused_ops"], list)
    assert json.loads(json.dumps(d)) == d


def test_kernel_info_is_frozen_and_hashable() -> None:
    info = decode_kernel("ampere_sgemm_128x64_tn")
    assert isinstance(info, KernelInfo)
    with pytest.raises(Exception):
        info.library = "cutlass"  # type: ignore[misc]
    assert hash(info) == hash(decode_kernel("ampere_sgemm_128x64_tn"))


def test_decode_many_keeps_order() -> None:
    names = ["Memset (Device)", "ampere_sgemm_128x64_tn", "", "triton_tem_fused_mm_0"]
    infos = decode_many(names)
    assert [i.name for i in infos] == names
    assert [i.library for i in infos] == ["cuda-runtime", "cublas", "other", "triton"]
    assert decode_many(iter(names)) == infos


def test_empty_and_blank_names() -> None:
    for name in ("", " ", "\n\t"):
        info = decode_kernel(name)
        assert info.name == name
        assert (info.library, info.op, info.dtype, info.fused_ops) == ("other", "other", None, ())


def _valid(info: KernelInfo) -> bool:
    return (info.library in LIBRARIES and (info.op is None or info.op in OPS)
            and (info.dtype is None or info.dtype in DTYPES)
            and info.tensor_cores in (None, True, False) and isinstance(info.fused_ops, tuple))


def test_random_strings_never_raise() -> None:
    rng = random.Random(20240601)
    alphabet = string.printable + "<>()[]{}::__  ~αβ€→…"
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
        info = decode_kernel(s)
        assert info.name == s and _valid(info)


def test_random_garbage_is_other() -> None:
    # No family marker can be spelt with these letters, so every string must come back "other".
    rng = random.Random(7)
    alphabet = string.digits + "jkqvwxyzJKQVWXYZ" + "<>()[]{}:;,.-+*&^%$#@!~ /\\|=?'\"_\t"
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        info = decode_kernel(s)
        assert info.library == "other", s
        assert (info.arch, info.dtype, info.tile, info.layout, info.tensor_cores, info.fused_ops) == \
            (None, None, None, None, None, ())


def test_fragments_of_real_names_never_raise() -> None:
    # Truncations, splices and bracket soup built from the real names above.
    rng = random.Random(3)
    names = [n for n, _ in CASES]
    for _ in range(2000):
        a, b = rng.choice(names), rng.choice(names)
        s = a[:rng.randrange(len(a) + 1)] + rng.choice(["", "<", ">", "(", ")", "::", "_"]) + \
            b[rng.randrange(len(b) + 1):]
        assert _valid(decode_kernel(s))


def test_huge_and_pathological_names_are_fast_and_safe() -> None:
    huge = [
        "x" * 1_000_000,
        "<" * 200_000,
        ">" * 200_000 + "(" * 200_000,
        "_" * 500_000,
        "_Z" + "9" * 100_000,
        "_ZN" + "3abc" * 50_000,
        "a" * 300_000 + "cutlass_" + "x" * 300_000,
    ]
    start = time.perf_counter()
    for name in huge:
        info = decode_kernel(name)
        assert info.name == name and info.library == "other"
    templated = "void at::native::vectorized_elementwise_kernel<4, " + "Foo<" * 20_000 + "float" + \
        ">" * 20_000 + ">(int)"
    info = decode_kernel(templated)
    assert (info.library, info.op) == ("pytorch", "elementwise")
    assert time.perf_counter() - start < 20.0
