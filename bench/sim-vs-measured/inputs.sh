# Sourced by run.sh and send-order.sh: writes the models and data both
# measure into $work (the examples' inputs, mlp512 and transformer256).
# Needs $root (the source tree) and $here (this folder).
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
