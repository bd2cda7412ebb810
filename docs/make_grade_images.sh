#!/usr/bin/env bash
# Regenerates the README's "Grade a class" pictures with the built binary: a made-up class of ten graded on the CPU
# backend, its class page and one student's page (rendered by a headless Chromium, when one is installed: Debian's
# `chromium`). The window's Class panel with a student opened (grade_class_panel.png) comes from cp_ui_tests with
# CP_UI_TEST_SHOTS set (ClassWindow: a click is not a command-line option).
#   docs/make_grade_images.sh [BUILD_DIR]        (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/cuda-playground"
out="docs/images"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" "$tmp/class"

assignment=tests/data/grade/vector_add_week1.cu
"$bin" export "$assignment" --for-students --out "$tmp/handout.cu" >/dev/null
body='    if (i < n) c\[i\] = a\[i\] + b\[i\];'
student() {  # student NAME LINE: the handout with the kernel's line replaced
    sed "s|$body|$2|" "$tmp/handout.cu" > "$tmp/class/$1.cu"
}
student amara '    if (i < n) c[i] = a[i] + b[i];'
student ben '    if (i >= n) return; c[i] = a[i] + b[i];'
student chen '    for (int k = i; k < n; k += blockDim.x * gridDim.x) c[k] = a[k] + b[k];'
student dara '    if (i < n) c[i] = b[i] + a[i];'
student emil '    c[i] = a[i] + b[i];'
student farah '    if (blockIdx.x < n / blockDim.x) c[i] = a[i] + b[i];'
student gita '    for (int j = 0; j < 16; ++j) { int k = i - i % 16 + j; if (k < n) c[k] = a[k] + b[k]; }'
student hugo '    if (i < n) c[i] = a[i] + b[i]'
student ivan '    if (i == 7) *(volatile int*)0 = 1; if (i < n) c[i] = a[i] + b[i];'
student jun '    if (i < n) c[i] = a[i] * b[i];'
# One at a time: the times on the class page are then each taken with the machine to itself.
"$bin" grade "$assignment" "$tmp/class" --backend cpu --out "$tmp/results" >/dev/null

if command -v chromium >/dev/null; then
    page() {  # page FILE PNG HEIGHT
        chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,"$3" \
            --screenshot="$2" "file://$1" >/dev/null 2>&1
    }
    page "$tmp/results/index.html" "$out/grade_class_page.png" 1000
    page "$tmp/results/students/005.html" "$out/grade_student_page.png" 820  # emil: out of bounds at odd sizes
else
    echo "note: no chromium here: the class page and a student's page are not remade (apt-get install chromium)"
fi
echo "wrote $out/grade_class_page.png $out/grade_student_page.png"
