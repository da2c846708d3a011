import protobuf from "protobufjs";

/**
 * The subset of onnx.proto (field numbers from the ONNX spec) needed to write the
 * locally built models: nodes with int/float/ints attributes, float and int64
 * initializers, typed inputs and outputs. Written here rather than pulled from a
 * package so the model writers have no generated code and no schema file.
 */
const ONNX_SUBSET = `
syntax = "proto3";
package onnx;
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message StringStringEntryProto { string key = 1; string value = 2; }
message AttributeProto { string name = 1; float f = 2; int64 i = 3; repeated int64 ints = 8; int32 type = 20; }
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
export const FLOAT = 1;
export const INT8 = 3;
export const INT64 = 7;
/** AttributeProto.AttributeType values. */
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** A dimension is either fixed (number) or symbolic (name), as in ONNX. */
export type Dim = number | string;

/** An attribute value: a number is an int unless `float` is asked for; an array is ints. */
export type AttributeValue = number | number[] | { float: number };

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, AttributeValue>;
}

export interface OnnxTensor {
  name: string;
  dims: number[];
  data: Float32Array | BigInt64Array | Int8Array;
}

export interface OnnxValue {
  name: string;
  elemType: typeof FLOAT | typeof INT64;
  dims: Dim[];
}

export interface OnnxModelSpec {
  name: string;
  docString: string;
  metadata: Record<string, string>;
  opset: number;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
}

function valueInfo({ name, elemType, dims }: OnnxValue) {
  const dim = dims.map((d) => (typeof d === "number" ? { dim_value: d } : { dim_param: d }));
  return { name, type: { tensor_type: { elem_type: elemType, shape: { dim } } } };
}

function attribute(name: string, value: AttributeValue) {
  if (Array.isArray(value)) return { name, type: ATTR_INTS, ints: value };
  if (typeof value === "number") return { name, type: ATTR_INT, i: value };
  return { name, type: ATTR_FLOAT, f: value.float };
}

/** Little-endian bytes regardless of host endianness (ONNX raw_data is LE). */
function rawData(values: Float32Array | BigInt64Array | Int8Array): Uint8Array {
  if (values instanceof Int8Array) return new Uint8Array(values.buffer, values.byteOffset, values.length);
  const width = values instanceof Float32Array ? 4 : 8;
  const out = new Uint8Array(values.length * width);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) {
    if (values instanceof Float32Array) view.setFloat32(i * 4, values[i]!, true);
    else view.setBigInt64(i * 8, values[i]!, true);
  }
  return out;
}

function tensor({ name, dims, data }: OnnxTensor) {
  const count = dims.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new Error(`initializer ${name}: ${data.length} values for dims [${dims}]`);
  const dataType = data instanceof Float32Array ? FLOAT : data instanceof Int8Array ? INT8 : INT64;
  return { name, dims, data_type: dataType, raw_data: rawData(data) };
}

export function encodeOnnxModel(spec: OnnxModelSpec): Uint8Array {
  const root = protobuf.parse(ONNX_SUBSET, { keepCase: true }).root;
  const ModelProto = root.lookupType("onnx.ModelProto");
  const model = {
    ir_version: 8,
    producer_name: "engram",
    producer_version: "1",
    doc_string: spec.docString,
    opset_import: [{ domain: "", version: spec.opset }],
    metadata_props: Object.keys(spec.metadata)
      .sort()
      .map((key) => ({ key, value: spec.metadata[key] })),
    graph: {
      name: spec.name,
      node: spec.nodes.map((node, i) => ({
        name: `${node.op.toLowerCase()}_${i}`,
        op_type: node.op,
        input: node.inputs,
        output: node.outputs,
        attribute: Object.entries(node.attributes ?? {}).map(([name, value]) => attribute(name, value)),
      })),
      initializer: spec.initializers.map(tensor),
      input: spec.inputs.map(valueInfo),
      output: spec.outputs.map(valueInfo),
    },
  };
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
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
 * A BERT-shaped ONNX model whose whole computation is
 * last_hidden_state = Gather(weights, input_ids). attention_mask is declared
 * (unused) so it matches the standard encoder interface; transformers.js only
 * feeds inputs a session declares, so token_type_ids is left out on purpose.
 */
export function encodeGatherModel(spec: GatherModelSpec): Uint8Array {
  if (spec.weights.length !== spec.rows * spec.dim) throw new Error("weights size != rows*dim");
  return encodeOnnxModel({
    name: "glove_sif_gather",
    docString: spec.docString,
    metadata: spec.metadata,
    opset: 13,
    nodes: [{ op: "Gather", inputs: ["embeddings", "input_ids"], outputs: ["last_hidden_state"], attributes: { axis: 0 } }],
    initializers: [{ name: "embeddings", dims: [spec.rows, spec.dim], data: spec.weights }],
    inputs: [
      { name: "input_ids", elemType: INT64, dims: ["batch_size", "sequence_length"] },
      { name: "attention_mask", elemType: INT64, dims: ["batch_size", "sequence_length"] },
    ],
    outputs: [{ name: "last_hidden_state", elemType: FLOAT, dims: ["batch_size", "sequence_length", spec.dim] }],
  });
}
