"""ONNX matrix products (onnx-import.md §6.1): Gemm, MatMul, Einsum."""

import numpy as np
import pytest

from one_cmds.frontends.onnx import OnnxOptions
from support.onnx_check import check, onnx_inputs
from support.onnx_text import import_error, opcodes, text_model

RNG = np.random.default_rng(0)


def weights(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# -- Gemm ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("attrs", "b_shape", "c_shape", "expected"),
    [
        ("transB=1,alpha=0.5,beta=2.0", (6, 4), (6,), ["FULLY_CONNECTED"]),
        ("", (4, 6), (1, 6), ["FULLY_CONNECTED"]),
        ("transA=1,beta=0.5", (4, 6), (3, 6), ["TRANSPOSE", "FULLY_CONNECTED", "ADD"]),
        ("alpha=2.0", (4, 6), (3, 1), ["FULLY_CONNECTED", "ADD"]),
    ],
)
def test_gemm_with_constant_b(tmp_path, attrs, b_shape, c_shape, expected):
    a_shape = "4,3" if "transA=1" in attrs else "3,4"
    graph = f"g (float[{a_shape}] a) => (float[] y) {{ y = Gemm<{attrs}>(a, b, c) }}".replace(
        "<>", ""
    )
    imported = check(text_model(graph, 11, b=weights(*b_shape), c=weights(*c_shape)), tmp_path)
    assert opcodes(imported) == expected


@pytest.mark.parametrize("opset", [9, 11])
def test_gemm_dynamic_rows(tmp_path, opset):
    """Gemm-9 needs C; Gemm-11 may omit it."""
    operands = "a, b, c" if opset == 9 else "a, b"
    graph = f"g (float[N,4] a) => (float[] y) {{ y = Gemm<transB=1>({operands}) }}"
    imported = check(text_model(graph, opset, b=weights(5, 4), c=weights(5)), tmp_path)
    assert opcodes(imported) == ["FULLY_CONNECTED"]


def test_gemm_with_computed_b_and_c(tmp_path):
    graph = """
    g (float[3,4] a, float[6,4] b, float[3,6] c) => (float[] y) {
        y = Gemm<transB=1,alpha=0.5,beta=3.0>(a, b, c)
    }"""
    imported = check(text_model(graph, 13), tmp_path)
    assert opcodes(imported) == ["BATCH_MATMUL", "MUL", "MUL", "ADD"]


# -- MatMul -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", ["N,4", "N,3,4", "N,2,3,4", "N,2,2,3,4"])
def test_matmul_constant_b_is_fully_connected(tmp_path, shape):
    graph = f"g (float[{shape}] a) => (float[] y) {{ y = MatMul(a, b) }}"
    imported = check(text_model(graph, b=weights(4, 5)), tmp_path)
    assert opcodes(imported) == ["FULLY_CONNECTED"]
    assert imported.main.operators[0].options.keepNumDims


def test_matmul_disable_batchmatmul_unfold(tmp_path):
    graph = "g (float[N,3,4] a) => (float[] y) { y = MatMul(a, b) }"
    options = OnnxOptions(experimental_disable_batchmatmul_unfold=True)
    imported = check(text_model(graph, b=weights(4, 5)), tmp_path, options=options)
    assert opcodes(imported) == ["BATCH_MATMUL"]


@pytest.mark.parametrize(
    ("a", "b"),
    [("N,2,3,4", "N,2,4,5"), ("N,3,4", "4,5"), ("2,1,3,4", "N,4,5"), ("N,2,2,3,4", "1,2,1,4,5")],
)
def test_matmul_computed_operands_one_batch_matmul(tmp_path, a, b):
    graph = f"g (float[{a}] a, float[{b}] b) => (float[] y) {{ y = MatMul(a, b) }}"
    assert opcodes(check(text_model(graph), tmp_path)) == ["BATCH_MATMUL"]


@pytest.mark.parametrize(
    ("a", "b", "constant_b"),
    [
        ("4", "N,4,5", False),
        ("N,3,4", "4", False),
        ("N,3,4", "4", True),
        ("4", "4", False),
        ("4", "4,5", True),
    ],
)
def test_matmul_rank_1_operands(tmp_path, a, b, constant_b):
    if constant_b:
        graph = f"g (float[{a}] a) => (float[] y) {{ y = MatMul(a, b) }}"
        m = text_model(graph, b=weights(*map(int, b.split(","))))
    else:
        m = text_model(f"g (float[{a}] a, float[{b}] b) => (float[] y) {{ y = MatMul(a, b) }}")
    check(m, tmp_path)


# -- Einsum -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("equation", "a", "b"),
    [
        ("bij,bjk->bik", "N,3,4", "N,4,5"),
        ("bhqd,bhkd->bhqk", "N,2,3,4", "N,2,5,4"),
        ("bhqk,bhkd->bqhd", "N,2,3,5", "N,2,5,4"),
        ("...ij,...jk->...ik", "N,2,3,4", "1,2,4,5"),
        ("ij,jk", "3,4", "4,5"),
        ("i,i->", "4", "4"),
        ("i,j->ij", "3", "4"),
        ("bij,bkl->bikjl", "N,2,3", "N,4,5"),
        ("abc,cd->da", "N,3,4", "4,5"),
        ("bnd,dnh->bh", "2,3,4", "4,3,5"),
    ],
)
def test_einsum_two_operands(tmp_path, equation, a, b):
    graph = f'g (float[{a}] a, float[{b}] b) => (float[] y) {{ y = Einsum<equation="{equation}">(a, b) }}'
    check(text_model(graph, 12), tmp_path)


@pytest.mark.parametrize(
    ("equation", "b_shape", "expected"),
    [
        ("bij,jk->bik", (4, 5), ["FULLY_CONNECTED"]),
        ("bi,oi->bo", (5, 4), ["FULLY_CONNECTED"]),
        ("bsij,ijk->bsk", (3, 4, 5), ["RESHAPE", "FULLY_CONNECTED"]),
        ("bsk,kij->bsij", (4, 2, 3), ["FULLY_CONNECTED", "RESHAPE"]),
    ],
)
def test_einsum_constant_right_operand_is_fully_connected(tmp_path, equation, b_shape, expected):
    a_shape = {"bij": "N,3,4", "bi,": "N,4", "bsi": "N,2,3,4", "bsk": "N,2,4"}[equation[:3]]
    graph = f'g (float[{a_shape}] a) => (float[] y) {{ y = Einsum<equation="{equation}">(a, b) }}'
    assert opcodes(check(text_model(graph, 12, b=weights(*b_shape)), tmp_path)) == expected


@pytest.mark.parametrize("equation", ["ij->ji", "bij->bj", "bij->", "...ij->...ji", "bij"])
def test_einsum_one_operand(tmp_path, equation):
    graph = f'g (float[N,3,4] a) => (float[] y) {{ y = Einsum<equation="{equation}">(a) }}'
    if equation == "ij->ji":
        graph = graph.replace("N,3,4", "3,4")
    check(text_model(graph, 12), tmp_path)


def test_einsum_with_several_unknown_dims_reshapes_in_the_graph(tmp_path):
    graph = 'g (float[N,T,3,4] a, float[4,3,5] b) => (float[] y) { y = Einsum<equation="ntij,jik->ntk">(a, b) }'
    m = text_model(graph, 12)
    check(m, tmp_path, inputs=onnx_inputs(m, [(2, 3, 3, 4), (4, 3, 5)]))


@pytest.mark.parametrize("equation", ["ii->i", "ij,jk,kl->il"])
def test_einsum_unsupported_equations(tmp_path, equation):
    operands = "a, a, a" if equation.count(",") == 2 else "a"
    graph = f'g (float[4,4] a) => (float[] y) {{ y = Einsum<equation="{equation}">({operands}) }}'
    message = import_error(text_model(graph, 12), tmp_path)
    assert message.endswith(f"(opset 12): equation '{equation}' is not supported")
