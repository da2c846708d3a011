import protobuf from "protobufjs";

/**
 * The subset of onnx.proto (field numbers from the ONNX spec) needed to write a
 * single-node graph with one float initializer. Written here rather than pulled
 * from a package so the model writer has no generated code and no schema file.
 */
const ONNX_SUBSET = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message StringStringEntryProto { string key = 1; string value = 2; }
message AttributeProto { string name = 1; int64 i = 3; int32 type = 20; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3;
  string op_type = 4; repeated AttributeProto attribute = 5; string domain = 7;
}
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  string doc_string = 10; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message ModelProto {
  int64 ir_version = 1; string producer_name = 2; string producer_version = 3;
  string doc_string = 6; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8;
  repeated StringStringEntryProto metadata_props = 14;
}
`;

/** ONNX TensorProto.DataType values. */
const FLOAT = 1;
const INT64 = 7;
/** AttributeProto.AttributeType.INT */
const ATTR_INT = 2;

/** A dimension is either fixed (number) or symbolic (name), as in ONNX. */
type Dim = number | string;

function valueInfo(name: string, elemType: number, dims: Dim[]) {
  const dim = dims.map((d) => (typeof d === "number" ? { dim_value: d } : { dim_param: d }));
  return { name, type: { tensor_type: { elem_type: elemType, shape: { dim } } } };
}

/** Float32 little-endian bytes regardless of host endianness (ONNX raw_data is LE). */
function float32LE(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i]!, true);
  return out;
}

export interface GatherModelSpec {
  /** Row-major [rows, dim] embedding table. */
  weights: Float32Array;
  rows: number;
  dim: number;
  docString: string;
  metadata: Record<string, string>;
}

/**
 * Encodes a BERT-shaped ONNX model whose whole computation is
 * last_hidden_state = Gather(weights, input_ids). attention_mask is declared
 * (unused) so it matches the standard encoder interface; transformers.js only
 * feeds inputs a session declares, so token_type_ids is left out on purpose.
 */
export function encodeGatherModel(spec: GatherModelSpec): Uint8Array {
  if (spec.weights.length !== spec.rows * spec.dim) throw new Error("weights size != rows*dim");
  const root = protobuf.parse(ONNX_SUBSET, { keepCase: true }).root;
  const ModelProto = root.lookupType("onnx.ModelProto");
  const model = {
    ir_version: 8,
    producer_name: "engram",
    producer_version: "1",
    doc_string: spec.docString,
    opset_import: [{ domain: "", version: 13 }],
    metadata_props: Object.keys(spec.metadata)
      .sort()
      .map((key) => ({ key, value: spec.metadata[key] })),
    graph: {
      name: "glove_sif_gather",
      node: [
        {
          name: "lookup",
          op_type: "Gather",
          input: ["embeddings", "input_ids"],
          output: ["last_hidden_state"],
          attribute: [{ name: "axis", type: ATTR_INT, i: 0 }],
        },
      ],
      initializer: [
        { name: "embeddings", dims: [spec.rows, spec.dim], data_type: FLOAT, raw_data: float32LE(spec.weights) },
      ],
      input: [
        valueInfo("input_ids", INT64, ["batch_size", "sequence_length"]),
        valueInfo("attention_mask", INT64, ["batch_size", "sequence_length"]),
      ],
      output: [valueInfo("last_hidden_state", FLOAT, ["batch_size", "sequence_length", spec.dim])],
    },
  };
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}
