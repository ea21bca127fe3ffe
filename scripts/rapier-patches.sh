#!/usr/bin/env bash
# vendor/rapier2d is pristine rapier2d 0.36.1 plus the patch series in vendor/rapier2d/patches/
# (NNNN-name.patch, applied in name order; see vendor/rapier2d/PATCH.md).
#
#   scripts/rapier-patches.sh apply DIR   DIR := pristine 0.36.1 + the series (DIR must not exist)
#   scripts/rapier-patches.sh check       pristine + series == vendor/rapier2d (exit 1 with the diff if not)
#   scripts/rapier-patches.sh diff        what vendor/rapier2d changes beyond the series, as a patch
#                                         (the body of the next NNNN-name.patch; give it a header)
#
# The pristine package comes from cargo's own cache ($CARGO_HOME/registry/cache/*/rapier2d-0.36.1.crate);
# when it is missing, a throw-away cargo project depending on rapier2d =0.36.1 runs `cargo fetch`, so a
# fresh CI machine gets it from crates.io the ordinary way (checksum-verified by cargo).
#
# Vendoring differences that are not patches: the crate's Cargo.lock is left out (a dependency's lock
# file is ignored by cargo), cargo's extraction marker .cargo-ok is kept, PATCH.md and patches/ are ours.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENDOR="$ROOT/vendor/rapier2d"
PATCHES="$VENDOR/patches"
CRATE=rapier2d
VERSION=0.36.1
CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"

die() { echo "rapier-patches: $*" >&2; exit 1; }

# Prints the path of the pristine .crate file, fetching it through cargo if needed.
pristine_crate() {
    local found
    found=$(ls "$CARGO_HOME"/registry/cache/*/"$CRATE-$VERSION.crate" 2>/dev/null | head -n 1 || true)
    if [[ -z "$found" ]]; then
        local tmp
        tmp=$(mktemp -d)
        mkdir -p "$tmp/src"
        cat > "$tmp/Cargo.toml" <<EOF
[package]
name = "fetch-pristine-$CRATE"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$CRATE = "=$VERSION"
EOF
        : > "$tmp/src/lib.rs"
        (cd "$tmp" && cargo fetch --quiet) || die "could not fetch $CRATE $VERSION from crates.io (network?)"
        rm -rf "$tmp"
        found=$(ls "$CARGO_HOME"/registry/cache/*/"$CRATE-$VERSION.crate" 2>/dev/null | head -n 1 || true)
        [[ -n "$found" ]] || die "cargo fetched $CRATE $VERSION but it is not in $CARGO_HOME/registry/cache"
    fi
    echo "$found"
}

# apply DIR: pristine + the series into DIR.
apply_series() {
    local dir=$1
    [[ ! -e "$dir" ]] || die "$dir exists; give a new directory"
    local crate work
    crate=$(pristine_crate)
    work=$(mktemp -d)
    tar -xzf "$crate" -C "$work"
    mv "$work/$CRATE-$VERSION" "$dir"
    rmdir "$work"
    rm -f "$dir/Cargo.lock"
    printf '{"v":1}' > "$dir/.cargo-ok"
    local patch
    for patch in "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch; do
        [[ -e "$patch" ]] || continue
        # git apply works outside a repository too (like patch -p1), and refuses fuzz.
        (cd "$dir" && git apply --whitespace=nowarn "$patch") || die "$(basename "$patch") does not apply"
    done
}

# Prints the vendored tree's difference from pristine + series (empty when they agree).
vendor_diff() {
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' RETURN
    apply_series "$tmp/a"
    mkdir "$tmp/b"
    (cd "$VENDOR" && tar --exclude=./PATCH.md --exclude=./patches -cf - .) | tar -xf - -C "$tmp/b"
    # --no-index diffs two directories with repository-relative paths (a/..., b/...).
    (cd "$tmp" && git diff --no-index --no-prefix --src-prefix=a/ --dst-prefix=b/ a b) || true
}

case "${1:-}" in
    apply)
        [[ $# -eq 2 ]] || die "usage: $0 apply DIR"
        apply_series "$2"
        ;;
    check)
        out=$(vendor_diff)
        if [[ -n "$out" ]]; then
            echo "$out" | head -n 80 >&2
            die "vendor/rapier2d differs from pristine $CRATE $VERSION + vendor/rapier2d/patches (diff above). \
Keep every change to vendor/rapier2d as a numbered patch: \`scripts/rapier-patches.sh diff\` prints the \
missing one; save it as vendor/rapier2d/patches/NNNN-name.patch with a header (what, why, measured gain) \
and describe it in vendor/rapier2d/PATCH.md"
        fi
        n=$(ls "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch | wc -l)
        echo "vendor/rapier2d == pristine $CRATE $VERSION + $n patches"
        ;;
    diff)
        vendor_diff | sed -e 's#^diff --git a/a/#diff --git a/#' -e 's# b/b/# b/#' \
            -e 's#^--- a/a/#--- a/#' -e 's#^+++ b/b/#+++ b/#'
        ;;
    *)
        die "usage: $0 apply DIR | check | diff"
        ;;
esac
