#!/usr/bin/python3
# Writes tests/onnx/hostile/CODE_name.onnx: one hostile or broken model per importer code
# (several for some), each of which must fail with CODE and nothing worse (no crash, no hang,
# no giant allocation). The ONNX checker itself accepts several of them (dims [-5], external
# data at ../../../etc/passwd): rung's own checks must catch them first. The cases that need
# the file system (a symlink out of the folder, a FIFO) are made at test time by
# onnx_hostile_test.cpp from ext_data.onnx. Run with /usr/bin/python3 (python3-onnx 1.12).
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")


def model(nodes, inputs, outputs, inits=(), opset=17, ir=8):
    g = helper.make_graph(nodes, "hostile", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_hostile.py")
    m.ir_version = ir
    return m


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def relu_model(**kw):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2])], [f32("y", [2])], **kw)


def save(name, m):
    onnx.save(m, os.path.join(OUT, name + ".onnx"))


def add_init(init, out_shape=(2,)):
    """x + init, with `init` a TensorProto built by hand."""
    return model([helper.make_node("Add", ["x", init.name], ["y"], name="add")], [f32("x", list(out_shape))],
                 [f32("y", list(out_shape))], [init])


def external(name, location, offset=None, length=None, dims=(2,)):
    t = TensorProto()
    t.name, t.data_type = "w", TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", offset), ("length", length)]:
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    save(name, add_init(t, dims))


def nested_if(depth):
    """An If whose then-branch holds an If ... `depth` graphs deep."""
    y = f32("y", [1])
    inner = helper.make_graph([helper.make_node("Constant", [], ["y"], value=numpy_helper.from_array(np.zeros(1, np.float32)))],
                              "leaf", [], [y])
    leaf = inner
    for i in range(depth):  # the else branch stays a leaf: the file grows linearly with depth
        node = helper.make_node("If", ["c"], ["y"], name=f"if{i}", then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([node], f"g{i}", [], [y])
    return model(list(inner.node), [helper.make_tensor_value_info("c", TensorProto.BOOL, [])], [y])


def scatter_hostile():
    """GatherND, Compress, the scatters, MaxUnpool, TopK, GridSample, RoiAlign: index operands and
    attributes a model can abuse (out-of-range indices, huge or negative sizes, wrong ranks)."""
    i64 = lambda n, s: helper.make_tensor_value_info(n, TensorProto.INT64, s)
    init = lambda n, a: numpy_helper.from_array(np.asarray(a), n)
    node = lambda op, ins, outs=("y",), **kw: helper.make_node(op, list(ins), list(outs), name=op.lower(), **kw)
    save("I0005_scatterelements_index_out_of_range",
         model([node("ScatterElements", ["d", "i", "u"], axis=1)], [f32("d", [1, 3]), f32("u", [1, 1])], [f32("y", [1, 3])],
               [init("i", np.array([[5]], np.int64))], opset=13))
    save("I0005_scatterelements_index_int64_min",
         model([node("ScatterElements", ["d", "i", "u"])], [f32("d", [3]), f32("u", [1])], [f32("y", [3])],
               [init("i", np.array([-2 ** 63], np.int64))], opset=13))
    save("I0005_scatternd_tuple_too_long",
         model([node("ScatterND", ["d", "i", "u"])], [f32("d", [2, 2]), f32("u", [1])], [f32("y", [2, 2])],
               [init("i", np.zeros((1, 5), np.int64))], opset=13))
    save("I0005_scatterelements_huge_data",
         model([node("ScatterElements", ["d", "i", "u"])], [f32("d", [2 ** 31, 2 ** 20]), f32("u", [1, 1])],
               [f32("y", [2 ** 31, 2 ** 20])], [init("i", np.zeros((1, 1), np.int64))], opset=13))
    save("I0012_scatterelements_add_runtime_indices",
         model([node("ScatterElements", ["d", "i", "u"], reduction="add")], [f32("d", [3]), i64("i", [1]), f32("u", [1])], [f32("y", [3])],
               opset=16))
    save("I0005_scatternd_reduction_max",
         model([node("ScatterND", ["d", "i", "u"], reduction="max")], [f32("d", [3]), i64("i", [1, 1]), f32("u", [1])], [f32("y", [3])],
               opset=16))
    save("I0005_scatternd_runtime_pairs_huge",
         model([node("ScatterND", ["d", "i", "u"])], [f32("d", [4096, 4096]), i64("i", [4096, 1]), f32("u", [4096, 4096])],
               [f32("y", [4096, 4096])], opset=13))
    save("I0005_gathernd_index_out_of_range",
         model([node("GatherND", ["d", "i"])], [f32("d", [2, 2])], [f32("y", [1])], [init("i", np.array([[0, 7]], np.int64))], opset=13))
    save("I0005_gathernd_batch_dims_huge",
         model([node("GatherND", ["d", "i"], batch_dims=2 ** 40)], [f32("d", [2, 2])], [f32("y", [1])],
               [init("i", np.array([[0, 1]], np.int64))], opset=13))
    save("I0005_compress_true_beyond_axis",
         model([node("Compress", ["x", "c"], axis=0)], [f32("x", [2])], [f32("y", [1])],
               [init("c", np.array([False, False, True], np.bool_))], opset=11))
    save("I0005_topk_k_huge",
         model([node("TopK", ["x", "k"], ["v", "i"])], [f32("x", [4])], [f32("v", [4]), i64("i", [4])],
               [init("k", np.array([2 ** 40], np.int64))], opset=11))
    save("I0005_topk_k_negative",
         model([node("TopK", ["x", "k"], ["v", "i"])], [f32("x", [4])], [f32("v", [4]), i64("i", [4])],
               [init("k", np.array([-3], np.int64))], opset=11))
    unpool = lambda name, out_shape, **kw: save(name, model(
        [node("MaxUnpool", ["x", "i", "s"], **kw)], [f32("x", [1, 1, 2, 2])], [f32("y", [1, 1, 2, 2])],
        [init("i", np.array([[[[0, 1], [2, 3]]]], np.int64)), init("s", np.array(out_shape, np.int64))], opset=11))
    unpool("I0006_maxunpool_negative_output_shape", [1, 1, -5, 4], kernel_shape=[2, 2], strides=[2, 2])
    unpool("I0005_maxunpool_output_shape_huge", [1, 1, 2 ** 40, 2 ** 40], kernel_shape=[2, 2], strides=[2, 2])
    unpool("I0005_maxunpool_kernel_negative", [1, 1, 4, 4], kernel_shape=[-5, -5], strides=[2, 2])
    unpool("I0005_maxunpool_strides_huge", [1, 1, 4, 4], kernel_shape=[2, 2], strides=[2 ** 62, 2 ** 62])
    save("I0005_maxunpool_index_out_of_range",
         model([node("MaxUnpool", ["x", "i"], kernel_shape=[2, 2], strides=[2, 2])], [f32("x", [1, 1, 2, 2])], [f32("y", [1, 1, 4, 4])],
               [init("i", np.array([[[[0, 1], [2, 99]]]], np.int64))], opset=11))
    roi = lambda name, rois, bidx, **kw: save(name, model(
        [node("RoiAlign", ["x", "r", "b"], **kw)], [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 2, 2])],
        [init("r", np.array(rois, np.float32)), init("b", np.array(bidx, np.int64))], opset=16))
    roi("I0005_roialign_output_huge", [[0, 0, 2, 2]], [0], output_height=2 ** 40, output_width=2 ** 40)
    roi("I0005_roialign_batch_index_out_of_range", [[0, 0, 2, 2]], [3])
    roi("I0005_roialign_adaptive_grid_huge", [[0, 0, 1e30, 1e30]], [0], sampling_ratio=0)
    roi("I0005_roialign_rois_wrong_rank", [0, 0, 2, 2], [0])
    save("I0005_gridsample_grid_wrong_rank",
         model([node("GridSample", ["x", "g"])], [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 2, 2])],
               [init("g", np.zeros((1, 4, 2), np.float32))], opset=16))
    save("I0005_gridsample_mode_unknown",
         model([node("GridSample", ["x", "g"], mode="lanczos")], [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 2, 2])],
               [init("g", np.zeros((1, 2, 2, 2), np.float32))], opset=16))
    save("I0012_gridsample_bicubic_runtime_grid",
         model([node("GridSample", ["x", "g"], mode="bicubic")], [f32("x", [1, 1, 4, 4]), f32("g", [1, 2, 2, 2])], [f32("y", [1, 1, 2, 2])], opset=16))


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    good = relu_model().SerializeToString()
    # I0001: not a model
    with open(os.path.join(OUT, "I0001_truncated.onnx"), "wb") as f:
        f.write(good[: len(good) // 2])
    with open(os.path.join(OUT, "I0001_garbage.onnx"), "wb") as f:
        f.write(bytes(range(256)) * 4)
    # I0002: limits
    save("I0002_deep_nesting", nested_if(150))
    save("I0002_rank_40", model([helper.make_node("Relu", ["x"], ["y"])], [f32("x", [1] * 40)], [f32("y", [1] * 40)]))
    # I0003: versions
    save("I0003_opset_99", relu_model(opset=99))
    save("I0003_ir_99", relu_model(ir=99))
    # I0004: no handler
    save("I0004_unknown_op", model([helper.make_node("FooBar", ["x"], ["y"], name="foo")], [f32("x", [2])], [f32("y", [2])]))
    save("I0004_nonzero", model([helper.make_node("NonZero", ["x"], ["y"], name="nonzero")], [f32("x", [3])],
                                 [helper.make_tensor_value_info("y", TensorProto.INT64, [1, None])]))
    m = model([helper.make_node("Scaler", ["x"], ["y"], name="scaler", domain="ai.onnx.ml")], [f32("x", [2])], [f32("y", [2])])
    m.opset_import.append(helper.make_opsetid("ai.onnx.ml", 3))
    save("I0004_ml_domain", m)
    # I0005: a mode rung has no semantics for (the checker does not look at mode values)
    save("I0005_pad_wrap", model([helper.make_node("Pad", ["x", "p"], ["y"], name="pad", mode="wrap")], [f32("x", [2])], [f32("y", [4])],
                                 [numpy_helper.from_array(np.array([1, 1], np.int64), "p")]))
    # ... a decomposition over transcendentals rung has no f64 kernels for, never run in f32
    f64 = lambda n, s: helper.make_tensor_value_info(n, TensorProto.DOUBLE, s)
    save("I0005_sinh_f64", model([helper.make_node("Sinh", ["x"], ["y"], name="sinh")], [f64("x", [2])], [f64("y", [2])]))
    # ... an Einsum form rung does not state (three operands)
    save("I0005_einsum_three", model([helper.make_node("Einsum", ["a", "b", "c"], ["y"], name="einsum", equation="i,i,i->")],
                                     [f32("a", [2]), f32("b", [2]), f32("c", [2])], [f32("y", [])]))
    # I0006: dims
    t = numpy_helper.from_array(np.zeros(2, np.float32), "w")
    del t.dims[:]
    t.dims.extend([-5])
    save("I0006_negative_dims", add_init(t))
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2 ** 40, 2 ** 40], raw_data=b"\0" * 8)
    save("I0006_dims_overflow", add_init(t))
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2], raw_data=b"\0" * 7)
    save("I0006_raw_data_short", add_init(t))
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3], float_data=[1, 2])
    save("I0006_typed_data_short", add_init(t))
    save("I0006_input_dim_negative", model([helper.make_node("Relu", ["x"], ["y"])], [f32("x", [-3])], [f32("y", [3])]))
    # I0007: element or value kinds
    save("I0007_string_input", model([helper.make_node("Identity", ["x"], ["y"])],
                                     [helper.make_tensor_value_info("x", TensorProto.STRING, [2])],
                                     [helper.make_tensor_value_info("y", TensorProto.STRING, [2])]))
    seq = helper.make_tensor_sequence_value_info("x", TensorProto.FLOAT, [2])
    save("I0007_sequence_input", model([helper.make_node("Identity", ["x"], ["y"])], [seq],
                                       [helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, [2])]))
    # I0008: external data outside the model's folder
    external("I0008_dotdot_etc_passwd", "../../../etc/passwd")
    external("I0008_absolute_etc_passwd", "/etc/passwd")
    external("I0008_a_dotdot_dotdot_x", "a/../../x")
    external("I0008_missing_file", "no_such_file.bin")
    # I0009: external ranges (data.bin below holds 8 bytes)
    with open(os.path.join(OUT, "data.bin"), "wb") as f:
        f.write(np.array([1, 2], np.float32).tobytes())
    external("I0009_offset_past_end", "data.bin", offset=4)
    external("I0009_length_wrong", "data.bin", length=4)
    external("I0009_offset_overflow", "data.bin", offset=2 ** 64 - 4, length=8)
    external("ext_data", "data.bin")  # valid here; the test makes symlink and FIFO variants of data.bin
    external("ext_sub_data", "sub/data.bin")  # the test makes sub/ a symlink to a folder outside
    # I0010: what only the ONNX checker finds (an attribute Relu does not have)
    save("I0010_checker_unknown_attribute", model([helper.make_node("Relu", ["x"], ["y"], name="relu", foo=1)], [f32("x", [2])],
                                                  [f32("y", [2])]))
    # I0011: a declared output type rung's shape rules contradict
    save("I0011_output_shape", model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [f32("x", [2])], [f32("y", [3])]))
    # I0012: a shape computed at run time
    save("I0012_runtime_reshape", model([helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
                                        [f32("x", [2, 3]), helper.make_tensor_value_info("s", TensorProto.INT64, [2])],
                                        [f32("y", [3, 2])]))
    save("I0012_window_size_input", model([helper.make_node("HannWindow", ["n"], ["y"], name="hann")],
                                          [helper.make_tensor_value_info("n", TensorProto.INT64, [])], [f32("y", [8])]))
    # I0013: names
    save("I0013_undefined_input", model([helper.make_node("Relu", ["nowhere"], ["y"], name="relu")], [f32("x", [2])], [f32("y", [2])]))
    save("I0013_out_of_order", model([helper.make_node("Relu", ["h"], ["y"], name="second"), helper.make_node("Relu", ["x"], ["h"], name="first")],
                                     [f32("x", [2])], [f32("y", [2])]))
    save("I0013_duplicate_output", model([helper.make_node("Relu", ["x"], ["y"], name="a"), helper.make_node("Relu", ["x"], ["y"], name="b")],
                                         [f32("x", [2])], [f32("y", [2])]))
    # I0014: weights over the budget, refused before any allocation (2^40 floats, no data)
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2 ** 40])
    save("I0014_weights_4TiB", add_init(t, (2 ** 40,)))
    # Found by mutate.py: a pool kernel of 2^63-1 with SAME_LOWER (the shape rule walked every
    # tap: a hang) and a GRU hidden_size of 2^31 that W does not hold (an 8 GiB zero state).
    save("I0005_avgpool_kernel_2e63", model([helper.make_node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[2 ** 63 - 1, 3],
                                                              auto_pad="SAME_LOWER")], [f32("x", [1, 1, 5, 5])], [f32("y", [1, 1, 5, 5])]))
    save("I0005_maxpool_taps_2e36", model([helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2 ** 18, 2 ** 18],
                                                            auto_pad="SAME_UPPER")], [f32("x", [1, 1, 5, 5])], [f32("y", [1, 1, 5, 5])]))
    save("I0005_gru_hidden_2e31", model([helper.make_node("GRU", ["x", "w", "r"], ["y"], name="gru", hidden_size=2 ** 31)],
                                        [f32("x", [2, 1, 3]), f32("w", [1, 12, 3]), f32("r", [1, 12, 4])], [f32("y", [2, 1, 1, 4])]))
    control_hostile()
    quant_hostile()
    scatter_hostile()
    window_3d_hostile()
    print(f"wrote {len(os.listdir(OUT))} files under {OUT}")


def control_hostile():
    """Loops, conditions, training ops, LRN and TfIdfVectorizer with abusive attributes or inputs."""
    i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    b1 = lambda n, v: numpy_helper.from_array(np.array(v), n)
    vi = lambda n, dt, s: helper.make_tensor_value_info(n, dt, s)
    body = helper.make_graph([helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Identity", ["y_in"], ["y_out"])], "body",
                             [vi("i", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), f32("y_in", [2])],
                             [vi("c_out", TensorProto.BOOL, []), f32("y_out", [2])])
    loop = lambda ins: helper.make_node("Loop", ins, ["y"], name="loop", body=body)
    # a trip count of 10^12 (unrolled at import: refused above the iteration limit)
    save("I0002_loop_trip_huge", model([loop(["m", "", "x"])], [f32("x", [2])], [f32("y", [2])], [i64("m", 10 ** 12)], opset=13))
    # no trip count and a condition that stays true: never ends
    save("I0002_loop_forever", model([loop(["", "c", "x"])], [f32("x", [2])], [f32("y", [2])], [b1("c", True)], opset=13))
    # nested loops of 4000 steps each over an empty body: 16 million body imports, bounded in total
    empty = helper.make_graph([], "empty", [vi("j", TensorProto.INT64, []), vi("c2", TensorProto.BOOL, []), f32("z", [2])],
                              [vi("c2", TensorProto.BOOL, []), f32("z", [2])])
    outer = helper.make_graph([helper.make_node("Loop", ["m", "", "y_in"], ["y_out"], body=empty)], "outer",
                              [vi("i", TensorProto.INT64, []), vi("c_in", TensorProto.BOOL, []), f32("y_in", [2])],
                              [vi("c_in", TensorProto.BOOL, []), f32("y_out", [2])])
    save("I0002_loop_nested_empty", model([helper.make_node("Loop", ["m", "", "x"], ["y"], name="loop", body=outer)], [f32("x", [2])],
                                          [f32("y", [2])], [i64("m", 4000)], opset=13))
    save("I0005_loop_trip_negative", model([loop(["m", "", "x"])], [f32("x", [2])], [f32("y", [2])], [i64("m", -5)], opset=13))
    # a trip count and condition computed at run time
    save("I0012_loop_trip_runtime", model([loop(["m", "", "x"])], [f32("x", [2]), vi("m", TensorProto.INT64, [])], [f32("y", [2])], opset=13))
    leaf = lambda name: helper.make_graph([helper.make_node("Identity", ["x"], [name])], name, [], [f32(name, [2])])
    save("I0012_if_runtime_cond", model([helper.make_node("If", ["c"], ["y"], name="if", then_branch=leaf("t"), else_branch=leaf("e"))],
                                        [f32("x", [2]), vi("c", TensorProto.BOOL, [])], [f32("y", [2])], opset=13))
    sbody = helper.make_graph([helper.make_node("Add", ["s_in", "v"], ["s_out"])], "sbody", [f32("s_in", [2]), f32("v", [2])], [f32("s_out", [2])])
    save("I0005_scan_axis_outside", model([helper.make_node("Scan", ["s", "x"], ["y"], name="scan", body=sbody, num_scan_inputs=1,
                                                            scan_input_axes=[7])], [f32("s", [2]), f32("x", [3, 2])], [f32("y", [2])], opset=11))
    save("I0005_scan_count_huge", model([helper.make_node("Scan", ["s", "x"], ["y"], name="scan", body=sbody, num_scan_inputs=2 ** 40)],
                                        [f32("s", [2]), f32("x", [3, 2])], [f32("y", [2])], opset=11))
    # training ops: a group count that does not divide
    m = model([helper.make_node("Adam", ["r", "t", "x", "g", "v"], ["y"], name="adam", domain="ai.onnx.preview.training")],
              [f32("r", []), vi("t", TensorProto.INT64, []), f32("x", [2]), f32("g", [2]), f32("v", [2])], [f32("y", [2])])
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("ai.onnx.preview.training", 1))
    save("I0005_adam_groups", m)
    m = model([helper.make_node("Foo", ["x"], ["y"], name="foo", domain="com.example")], [f32("x", [2])], [f32("y", [2])])
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    save("I0004_custom_domain", m)
    save("I0005_lrn_size_negative", model([helper.make_node("LRN", ["x"], ["y"], name="lrn", size=-5)], [f32("x", [1, 3, 2])], [f32("y", [1, 3, 2])]))
    save("I0005_lrn_rank1", model([helper.make_node("LRN", ["x"], ["y"], name="lrn", size=3)], [f32("x", [3])], [f32("y", [3])]))
    tf = lambda name, **kw: save(name, model([helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", **{k: v for k, v in {
        **dict(min_gram_length=1, max_gram_length=1, max_skip_count=0, mode="TF", ngram_counts=[0], ngram_indexes=[0, 1], pool_int64s=[3, 4]), **kw}.items() if v is not None})],
        [vi("x", TensorProto.INT64, [5])], [f32("y", [2])], opset=9))
    tf("I0005_tfidf_index_negative", ngram_indexes=[0, -1])
    tf("I0005_tfidf_index_huge", ngram_indexes=[0, 2 ** 50])
    tf("I0005_tfidf_counts_outside", ngram_counts=[0, 100])
    tf("I0005_tfidf_skip_negative", max_skip_count=-3)
    tf("I0007_tfidf_pool_strings", pool_int64s=None, pool_strings=["a", "b"])


def quant_hostile():
    """The quantized and integer ops: reductions past the exact bound, malformed scales and zero
    points, an out-of-range axis, an exponent Pow cannot apply exactly."""
    t = lambda n, dt, s: helper.make_tensor_value_info(n, dt, s)
    U8, I8, I32 = TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32
    # K = 40000 > 33025: the int32 result could overflow (and f32/f64 exactness is not claimed)
    save("I0005_matmulinteger_k_40000", model([helper.make_node("MatMulInteger", ["a", "b"], ["y"], name="mmi")],
                                              [t("a", U8, [1, 40000]), t("b", U8, [40000, 1])], [t("y", I32, [1, 1])], opset=10))
    # C/group * kh * kw = 200 * 20 * 20 = 80000 > 33025
    save("I0005_convinteger_reduction_80000", model([helper.make_node("ConvInteger", ["x", "w"], ["y"], name="convi")],
                                                    [t("x", U8, [1, 200, 20, 20]), t("w", U8, [1, 200, 20, 20])],
                                                    [t("y", I32, [1, 1, 1, 1])], opset=10))
    # weights whose dims multiply past 2^64 (checked, saturating)
    save("I0005_convinteger_weights_2e60", model([helper.make_node("ConvInteger", ["x", "w"], ["y"], name="convi")],
                                                 [t("x", U8, [1, 2 ** 30, 2 ** 30, 1]), t("w", U8, [1, 2 ** 30, 2 ** 30, 1])],
                                                 [t("y", I32, [1, 1, 1, 1])], opset=10))
    # a 2-D scale
    save("I0005_quantizelinear_scale_2d", model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")],
                                                [f32("x", [2, 3]), f32("s", [2, 3]), t("z", U8, [])], [t("y", U8, [2, 3])], opset=13))
    # axis outside the rank
    save("I0005_quantizelinear_axis_9", model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", axis=9)],
                                              [f32("x", [2, 3]), f32("s", [3]), t("z", U8, [3])], [t("y", U8, [2, 3])], opset=13))
    # a per-axis zero point of the wrong length
    save("I0005_dequantizelinear_zp_length", model([helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq")],
                                                   [t("x", I8, [2, 3]), f32("s", [3]), t("z", I8, [5])], [f32("y", [2, 3])], opset=13))
    # a zero point whose type is not its operand's
    save("I0005_qlinearmatmul_zp_type",
         model([helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"], name="qmm")],
               [t("a", U8, [2, 2]), f32("sa", []), t("za", I8, []), t("b", U8, [2, 2]), f32("sb", []), t("zb", U8, []), f32("sy", []),
                t("zy", U8, [])], [t("y", U8, [2, 2])], opset=10))
    # an integer base with a non-integral exponent (no exact integer power)
    save("I0005_pow_int_base_half", model([helper.make_node("Pow", ["x", "e"], ["y"], name="pow")], [t("x", I32, [2])], [t("y", I32, [2])],
                                          [numpy_helper.from_array(np.array([0.5, 2.0], np.float32), "e")], opset=15))
    # a float base with an int64 exponent computed at run time (exact in f32 only when known)
    save("I0012_pow_runtime_int64_exponent", model([helper.make_node("Pow", ["x", "e"], ["y"], name="pow")],
                                                   [f32("x", [2]), t("e", TensorProto.INT64, [2])], [f32("y", [2])], opset=15))


def window_3d_hostile():
    """3-D windows are composed at import from 1-D and 2-D ones: sizes that would overflow the
    extent arithmetic, emit millions of slices or gather a giant intermediate are refused."""
    def pool(name, op, x, y, outs=("y",), **attrs):
        ys = [f32(o, y) for o in outs[:1]] + [helper.make_tensor_value_info(o, TensorProto.INT64, y) for o in outs[1:]]
        save(name, model([helper.make_node(op, ["x"], list(outs), name=op.lower(), **attrs)], [f32("x", x)], ys))
    pool("I0005_maxpool_3d_kernel_2e40", "MaxPool", [1, 1, 4, 4, 4], [1, 1, 1, 1, 1], kernel_shape=[2 ** 40, 1, 1])
    pool("I0005_maxpool_3d_stride_2e62", "MaxPool", [1, 1, 4, 4, 4], [1, 1, 1, 4, 4], kernel_shape=[2, 1, 1], strides=[2 ** 62, 1, 1])
    pool("I0005_maxpool_3d_indices", "MaxPool", [1, 1, 4, 4, 4], [1, 1, 3, 3, 3], outs=("y", "i"), kernel_shape=[2, 2, 2])
    pool("I0005_averagepool_3d_32768_taps", "AveragePool", [1, 1, 32, 32, 32], [1, 1, 1, 1, 1], kernel_shape=[32, 32, 32])
    pool("I0005_averagepool_3d_pads_2e40", "AveragePool", [1, 1, 4, 4, 4], [1, 1, 1, 1, 1], kernel_shape=[2, 2, 2],
         pads=[2 ** 40, 0, 0, 2 ** 40, 0, 0])
    pool("I0005_averagepool_3d_extent_2e30", "AveragePool", [1, 1, 2 ** 30, 1, 1], [1, 1, 2 ** 30, 1, 1], kernel_shape=[1, 1, 1])
    pool("I0005_averagepool_3d_window_too_long", "AveragePool", [1, 1, 4, 4, 4], [1, 1, 1, 1, 1], kernel_shape=[9, 2, 2])
    ct = lambda name, x, w, y, **attrs: save(name, model([helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="convtranspose", **attrs)],
                                                         [f32("x", x), f32("w", w)], [f32("y", y)]))
    ct("I0005_convtranspose_3d_stride_2e40", [1, 1, 3, 3, 3], [1, 1, 2, 2, 2], [1, 1, 4, 4, 4], strides=[2 ** 40, 1, 1])
    ct("I0005_convtranspose_3d_pads_eat_output", [1, 1, 3, 3, 3], [1, 1, 2, 2, 2], [1, 1, 1, 4, 4], pads=[3, 0, 0, 3, 0, 0])
    ct("I0005_convtranspose_3d_output_padding", [1, 1, 3, 3, 3], [1, 1, 2, 2, 2], [1, 1, 6, 4, 4], output_padding=[2, 0, 0])
    ct("I0005_convtranspose_3d_weights_rank_4", [1, 1, 3, 3, 3], [1, 1, 2, 2], [1, 1, 4, 4, 4])
    # Conv over D = 2^20 with 1024 depth taps of 2^16 channels: a 2^46-element gathered input.
    save("I0006_conv_3d_gather_2e46", model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
                                            [f32("x", [1, 2 ** 16, 2 ** 20, 1, 1]), f32("w", [1, 2 ** 16, 2 ** 10, 1, 1])],
                                            [f32("y", [1, 1, 2 ** 20 - 2 ** 10 + 1, 1, 1])]))


if __name__ == "__main__":
    main()
