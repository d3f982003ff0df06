# Sourced by run.sh and send-order.sh: a scratch directory $work (removed
# on exit) with the models and data both measure (the examples' inputs,
# mlp512 and transformer256), single-threaded OpenBLAS, and model_inputs.
# Needs $here (this folder); sets $root (the source tree).
root="$here/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
python3 "$root/scripts/make-npy.py" "$work/x.npy" 16 64
python3 "$root/scripts/make-npy.py" "$work/y.npy" 16 8
python3 "$root/scripts/make-npy.py" "$work/tx.npy" 4 8 32
python3 "$root/scripts/make-npy.py" "$work/ty.npy" 4 8 32
python3 "$root/scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 \
  > "$work/mlp512.mlir"
python3 "$root/scripts/make-npy.py" "$work/x512.npy" 256 64
python3 "$root/scripts/make-npy.py" "$work/y512.npy" 256 8
python3 "$here/gen-transformer.py" --blocks 4 --width 256 --heads 4 \
  --batch 8 --seq 32 > "$work/transformer256.mlir"
python3 "$root/scripts/make-npy.py" "$work/tx256.npy" 8 32 256
python3 "$root/scripts/make-npy.py" "$work/ty256.npy" 8 32 256

# model_inputs MODEL: sets $source (the model file) and $data (its
# pipewave-run --data arguments).
model_inputs() {
  source=$root/examples/$1.mlir
  case $1 in
    mlp) data="--data x=$work/x.npy --data y=$work/y.npy" ;;
    transformer) data="--data x=$work/tx.npy --data y=$work/ty.npy" ;;
    mlp512) data="--data x=$work/x512.npy --data y=$work/y512.npy"
      source=$work/mlp512.mlir ;;
    transformer256) data="--data x=$work/tx256.npy --data y=$work/ty256.npy"
      source=$work/transformer256.mlir ;;
    *) echo "unknown model '$1' (mlp, transformer, mlp512, transformer256)" >&2
      exit 2 ;;
  esac
}
