#!/usr/bin/env bash
# Regenerates every figure README.md and its guide (docs/) quote, from the current code, and prints each one next to the
# README line it belongs to:
#
#   scripts/readme-figures.sh [--check] [--no-timings]
#
# It builds the release binary (and the two probe examples), then reruns: the fixtures' gait table and
# the MLP example (x velocities), the paper's own two-material wave, the MLP weight-count error, the
# render cost limit's "≈ 90 showcases", the golden-image CI example (`compare` verdicts), the README
# picture docs/showcase.png, the evolution table, the solver substep table and its percentages, the
# jointed-weld cross-check, the cantilever comparison with the original's figures, and `pom` / `pom
# align`; with timings, also `bench`, `render --bench`, the showcase video and the wall times.
#
# --check   exit 1 when a deterministic figure (a metric, count, deflection, verdict, the picture)
#           differs from what the README says. TIMING FIGURES (SVSPS, frames per second, wall times)
#           ARE REPORTED, NEVER CHECKED: they vary by machine and load.
# --no-timings  skip the runs that only measure time (bench, render --bench, the showcase video).
#
# "Within X %" figures are the largest measured |difference| rounded up to 0.1 %. The `eval` and
# cluster sections quote no output. Not repeated here: the gait table and the MLP example's velocity are checked by
# tests/integration/readme.rs (`--check` runs that test); the Δt = 1/30 s convergence figures of
# "Evolution" by evolve::hard_material_at_one_thirtieth_second_is_converged and the next test.
# Takes 10–20 minutes on a 2-vCPU machine (the solver table and the cantilever sweep are the longest).
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
timings=1
for arg in "$@"; do
    case $arg in
        --check) check=1 ;;
        --no-timings) timings=0 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "unknown argument $arg (use --check, --no-timings)" >&2
            exit 2
            ;;
    esac
done

cargo build --release --locked --bin vsr2d --example cantilever_probe --example weld_check
bin=target/release/vsr2d
probe=target/release/examples/cantilever_probe
weld=target/release/examples/weld_check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The README and its user guide (docs/*.md), where most figures moved, with line breaks and runs of
# spaces folded, so a quoted figure may wrap.
pages=(README.md docs/*.md)
flat=$(cat "${pages[@]}" | tr '\n' ' ' | tr -s ' ')
failed=()

# The first line of the README or a guide page holding `anchor` (file, number and start).
readme_line() {
    local hit
    hit=$(grep -n -F -- "$1" "${pages[@]}" | head -1)
    if [[ -n $hit ]]; then
        printf '%s' "$(cut -c1-160 <<<"$hit")"
    else
        printf 'README and docs: (no line holds %s)' "$1"
    fi
}

# figure LABEL NOW [ANCHOR]: a deterministic figure; NOW, as the README writes it, must be in the README.
figure() {
    local label=$1 now=$2 anchor=${3:-$2} status=ok
    if [[ $flat != *"$now"* ]]; then
        status=DIFFERS
        failed+=("$label")
    fi
    printf '[%s] %s\n    now:    %s\n    %s\n' "$status" "$label" "$now" "$(readme_line "$anchor")"
}

# timing LABEL NOW ANCHOR: measured and printed, never checked.
timing() {
    printf '[timing] %s\n    now:    %s\n    %s\n' "$1" "$2" "$(readme_line "$3")"
}

section() { printf '\n== %s\n' "$1"; }

# A metric of the first robot from `simulate`'s JSON on stdin.
metric() { grep -o "\"$1\": [-0-9.e]*" | head -1 | awk '{ print $2 }'; }
# −0.005 as the README writes negative numbers.
minus() { sed 's/^-/−/'; }

section "Scenarios: the fixtures' gait table (checked by tests/integration/readme.rs)"
for f in worm biped tripod two-material sensing-biped worm-10x3-uneven; do
    v20=$($bin simulate "fixtures/scenarios/$f.json" --duration 20 | metric x_velocity)
    v60=$($bin simulate "fixtures/scenarios/$f.json" --duration 60 | metric x_velocity)
    printf '[test]   %s: 20 s %.4f m/s, 60 s %.4f m/s\n    %s\n' "$f.json" "$v20" "$v60" "$(readme_line "\`$f.json\` |")"
done
paper=$(sed 's|2\*pi\*x/w|pi*x/w|' fixtures/scenarios/two-material.json | $bin simulate - --duration 20 | metric x_velocity)
figure "two-material with the paper's own wave, 20 s" "barely moves it: $(printf '%.2f' "$paper" | minus) m/s"

section "Scenarios: the MLP example"
v=$($bin simulate docs/examples/mlp-worm.json | metric x_velocity)
printf '[test]   mlp-worm.json x_velocity %s\n    %s\n' "$v" "$(readme_line 'reports `"x_velocity": ')"
sed 's/"weights": \[[^]]*\]/"weights": []/' docs/examples/mlp-worm.json | tr '\n' ' ' |
    sed 's/"weights": \[[^]]*\]/"weights": []/' >"$tmp/no-weights.json"
message=$($bin simulate "$tmp/no-weights.json" 2>&1 >/dev/null | grep -o 'expected [0-9]* weights[^)]*)' | head -1 || true)
figure "MLP weight-count error" "${message:-(no error)}" "weights for layer sizes"

section "Limits"
frames=$($bin render --png /dev/null --at 0 --size 1280x720 2>&1 | grep -o 'of [0-9]* frames' | awk '{ print $2 }')
times=$(awk -v f="$frames" 'BEGIN { printf "%.0f", 5e10 / (1280 * 720 * f) }')
figure "pixels × frames limit in showcases ($frames frames of 1280×720)" "(≈ $times times the 1280×720, 20 s showcase)"

section "Golden-image checks in your CI"
$bin render fixtures/scenarios/biped.json --png "$tmp/biped_10s.png" --at 10 --duration 10 --size 640x360 >/dev/null 2>&1
$bin render fixtures/scenarios/biped.json --png "$tmp/biped_10s_again.png" --at 10 --duration 10 --size 640x360 >/dev/null 2>&1
$bin render fixtures/scenarios/biped.json --png "$tmp/biped_12s.png" --at 12 --duration 12 --size 640x360 >/dev/null 2>&1
same=$($bin compare "$tmp/biped_10s.png" "$tmp/biped_10s_again.png" --tolerance 8 --budget 0.5% 2>&1 | head -1 || true)
other=$($bin compare "$tmp/biped_10s.png" "$tmp/biped_12s.png" --tolerance 8 --budget 0.5% --diff "$tmp/diff.png" 2>&1 |
    head -1 | sed 's/error: .*//' || true)
figure "compare, same frame" "\`$same\`" "prints \`match:"
# The guide elides the count and the box (they depend on the frames): only the verdict's words are quoted.
if [[ $other == DIFFER:*" pixels differ "* ]]; then other='DIFFER: … pixels differ …'; fi
figure "compare, frame at 12 s" "\`$other\`" "DIFFER:"

section "The README picture (docs/showcase.png: vsr2d render --png docs/showcase.png --at 10)"
$bin render --png "$tmp/showcase.png" --at 10 >/dev/null 2>&1
verdict=$($bin compare docs/showcase.png "$tmp/showcase.png" --tolerance 8 --budget 0.1% 2>&1 | head -1 | sed 's/error: .*//' || true)
status=ok
if [[ $verdict != match* ]]; then
    status=DIFFERS
    failed+=("docs/showcase.png")
fi
printf '[%s] docs/showcase.png against a fresh render\n    now:    %s\n    %s\n' "$status" "$verdict" \
    "$(readme_line 'docs/showcase.png')"

section "Evolution"
evolve_row() { # experiment jobs → evaluations detail, gen-0 best, final best, wall
    local name=$1 jobs=$2 summary
    summary=$($bin evolve "fixtures/experiments/$name.json" -o "$tmp/$name" --jobs "$jobs" 2>&1 >/dev/null | grep 'evaluations' | tail -1)
    evaluations=$(sed -E 's/.*; ([0-9]+) evaluations.*/\1/' <<<"$summary")
    simulated=$(sed -E 's/.* ([0-9]+) simulations.*/\1/' <<<"$summary")
    hits=$(sed -E 's/.* ([0-9]+) cache hits.*/\1/' <<<"$summary")
    invalid=$(sed -E 's/.* ([0-9]+) invalid.*/\1/' <<<"$summary")
    wall=$(sed -E 's/.*invalid; ([0-9.]+ s).*/\1/' <<<"$summary")
    best0=$(grep -m1 '"gen":0,' "$tmp/$name/log.jsonl" | grep -o '"best":[-0-9.e]*' | cut -d: -f2)
    best=$(tail -1 "$tmp/$name/log.jsonl" | grep -o '"best":[-0-9.e]*' | cut -d: -f2)
}
evolve_row worm-phases-quick 2
figure "worm-phases-quick evaluations" "1 s) | $evaluations |" "worm-phases-quick.json\` (n_pop"
figure "worm-phases-quick best at gen 0, at the end" "$(printf '| %.4f BL/s | %.4f BL/s |' "$best0" "$best")" "worm-phases-quick.json\` (n_pop"
timing "worm-phases-quick wall" "$wall" "worm-phases-quick.json\` (n_pop"
evolve_row body-5x5-quick 2
figure "body-5x5-quick evaluations" "| $evaluations ($simulated simulated, $hits cache hits, $invalid empty bodies) |" "body-5x5-quick.json\` (n_pop"
figure "body-5x5-quick best at gen 0, at the end" "$(printf '| %.4f BL/s | %.4f BL/s |' "$best0" "$best")" "body-5x5-quick.json\` (n_pop"
timing "body-5x5-quick wall (--jobs 2)" "$wall" "body-5x5-quick.json\` (n_pop"

section "The model: merged welds against jointed welds (weld_check 80)"
$weld 80 >"$tmp/weld.txt"
sed 's/^/    /' "$tmp/weld.txt"
# The largest |difference| of the 10×4 rows, rounded up to 0.1 % ("within").
worst=$(awk '$1 == "10x4" { d = $(NF - 1); if (d < 0) d = -d; if (d > m) m = d } END { c = m * 10; printf "%.1f", (c == int(c) ? c : int(c) + 1) / 10 }' "$tmp/weld.txt")
figure "10×4 cantilever, merged vs jointed welds at 80 substeps" "the 10×4 cantilever agrees within $worst % at 80 substeps" "the 10×4 cantilever agrees within"

section "The model: the cantilever comparison with the original 2D-VSR-Sim 1.0.0"
start=$(date +%s.%N)
$bin cantilever -o "$tmp/cantilever" -q >"$tmp/cantilever.txt" 2>&1
cantilever_wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }')
csv="$tmp/cantilever/reference_comparison.csv"
# "within X %" bounds are the largest |relative error| rounded up to 0.1 %; single values are rounded,
# signed as the guide writes them (+1.7 %, −9.5 %).
eval "$(awk -F, '
    function abs(x) { return x < 0 ? -x : x }
    function ceil1(x) { c = x * 10; return sprintf("%.1f", (c == int(c) ? c : int(c) + 1) / 10) }
    NR == 1 { next }
    $1 == "static_dy" { runs++; if ($10 == "yes") within++; if (abs($9) > most) most = abs($9) }
    $1 == "first_peak_dy" { peak[$5] = sprintf("%+.1f", $9) }
    $1 == "period" { period[$5] = sprintf("%+.1f", $9) }
    END {
        printf "static_runs=%d static_within=%d static_most=%s peak8=%s peak30=%s period8=%s period30=%s\n",
            runs, within, ceil1(most), peak[8], peak[30], period[8], period[30]
    }' "$csv")"
figure "static deflections within ±10 % of the original" "within $static_most % in $static_within of $static_runs runs" "in 30 of 30 runs"
figure "impulse response of the 10×4 beam, first peak and period at 8 and 30 Hz" \
    "(first peak $peak8 % at 8 Hz and $(minus <<<"$peak30") % at 30 Hz, period $(minus <<<"$period8") % and $(minus <<<"$period30") %)" \
    "first peak +"

section "Solver: substeps (cantilever_probe N; 10×4 beam)"
declare -A s30 s4 p30
for n in 3 4 5 6 8 10 16 20 32; do
    $probe "$n" >"$tmp/probe-$n.txt"
    s30[$n]=$(awk '$1 == "10x4" && $2 == 30 { print $4 }' "$tmp/probe-$n.txt")
    s4[$n]=$(awk '$1 == "10x4" && $2 == 4 { print $4 }' "$tmp/probe-$n.txt")
    p30[$n]=$(awk '$1 == "10x4" && $2 == 30 { print $5 }' "$tmp/probe-$n.txt")
    row=$(printf '| %s | %s | %s | %s |' "$n" "$(minus <<<"${s30[$n]}")" "$(minus <<<"${s4[$n]}")" "$(minus <<<"${p30[$n]}")")
    if [[ $n == 4 ]]; then
        row=$(printf '| **4 (default)** | **%s** | **%s** | **%s** |' "$(minus <<<"${s30[$n]}")" "$(minus <<<"${s4[$n]}")" "$(minus <<<"${p30[$n]}")")
    fi
    figure "substeps $n" "$row" "| $( [[ $n == 4 ]] && echo '**4' || echo "$n |")"
done
# Relative change from N to 2N substeps, in % of the 2N value.
change() { awk -v a="$1" -v b="$2" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; printf "%.2f", 100 * d }'; }
figure "3 → 6, 30 Hz static" "3 → 6 moves the stiff beam by $(change "${s30[3]}" "${s30[6]}") %" "3 → 6"
figure "4 → 8, 30 Hz static, 4 Hz static, 30 Hz peak" \
    "4 → 8 by $(change "${s30[4]}" "${s30[8]}") % (4 Hz: $(change "${s4[4]}" "${s4[8]}") %, peak: $(change "${p30[4]}" "${p30[8]}") %" "4 → 8"
ceil1() { awk -v x="$1" 'BEGIN { c = x * 10; printf "%.1f", (c == int(c) ? c : int(c) + 1) / 10 }'; }
statics=$(awk -v a="$(change "${s30[4]}" "${s30[32]}")" -v b="$(change "${s4[4]}" "${s4[32]}")" 'BEGIN { print (a > b ? a : b) }')
figure "4 substeps against 32: statics (largest of 30 and 4 Hz), first peak (bounds rounded up to 0.1 %)" \
    "statics are within $(ceil1 "$statics") % of the 32-substep values, the first peak within $(ceil1 "$(change "${p30[4]}" "${p30[32]}")") %" \
    "4-substep statics"

section "pom"
start=$(date +%s.%N)
$bin pom -o "$tmp/pom" >"$tmp/pom.txt" 2>&1
pom_wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }')
checks=$(grep -o 'Acceptance checks of spec §13: [0-9]* of [0-9]* pass' "$tmp/pom.txt" | awk '{ print $(NF - 1) }')
figure "pom acceptance checks" "acceptance table of the spec ($checks checks" "acceptance table of the spec ("
video_frames=$(grep -o '[0-9]* frames; goldens' "$tmp/pom.txt" | awk '{ print $1 }')
figure "pom.mp4 frames" "the $video_frames-frame video" "-frame video"
timing "pom wall (report and video)" "$pom_wall" "s wall for the report"
rms=$($bin pom align "$tmp/pom/markers_mm.csv" -o "$tmp/align" --no-video 2>&1 | grep -o 'RMS difference to POM.s markers: [0-9.]* mm' | awk '{ print $(NF - 1) }')
figure "pom align of the model's own markers" "with an RMS difference of $rms mm" "RMS difference of"

if ((timings)); then
    section "Benchmarks (timings: reported, not checked)"
    timing "vsr2d cantilever wall" "$cantilever_wall" "takes about 28"
    $bin bench --repeats 3 | sed 's/^/    /'
    timing "SVSPS, the \"now\" column (table above)" "see the table above" "| 12 | all | 18 | 1/60 |"
    timing "SVSPS behind the voxel-step limit's 30 min (table above)" "see the table above" "≈ 110 000 SVSPS"
    $bin render --bench 2>&1 | sed 's/^/    /'
    timing "render fps (table above)" "see the table above" "| 640×360 |"
    start=$(date +%s.%N)
    $bin render -o "$tmp/showcase.mp4" -q >/dev/null
    timing "vsr2d render (showcase, 601 frames at 1280×720)" \
        "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }')" "takes about 9"
fi

if ((check)); then
    section "tests/integration/readme.rs (the gait table, the MLP example)"
    if ! cargo test --locked --test integration readme; then
        failed+=("tests/integration/readme.rs")
    fi
fi

echo
if ((${#failed[@]})); then
    printf 'figures that differ from the README (%d):\n' "${#failed[@]}"
    printf '  %s\n' "${failed[@]}"
    ((check)) && exit 1
else
    echo "every deterministic figure is the README's (timings are reported, not checked)"
fi
