# Sourced by the benchmark scripts: sets `keil` to $KEIL_BIN, or to the
# release binary built now (in $CARGO_TARGET_DIR, default target/).
target=${CARGO_TARGET_DIR:-target}
if [ -n "${KEIL_BIN:-}" ]; then
    keil=$KEIL_BIN
else
    cargo build --release -q -p keil-cli
    keil="$target/release/keil"
fi
