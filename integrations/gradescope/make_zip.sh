#!/usr/bin/env bash
# Makes the zip to upload as a Gradescope "programming assignment" autograder:
#   integrations/gradescope/make_zip.sh --problem ID [--problems DIR] [--points N]
#                                       [--variant-secret FILE] [--out FILE]
# It holds, at the root of the archive (as Gradescope requires): setup.sh, run_autograder,
# headgrader.conf (the problem, points and, with --variant-secret, the secret's file name), the
# secret as variant-secret, and headgrader/ (the foundation's, the engine's and the CLI's
# sources and the problems of DIR, default the bundled problems/). With a secret each student
# is graded on their variant (docs/integrations.md); the secret sits beside the problems'
# references, which students never see either. The problem and the secret's length are checked
# before anything is written. Needs only bash and python3 (its zipfile module).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
problem="" problems="$repo/problems" points=1 out="headgrader-gradescope.zip" secret=""
while (($#)); do
  case "$1" in
    --problem) problem="$2"; shift 2 ;;
    --problems) problems="$2"; shift 2 ;;
    --points) points="$2"; shift 2 ;;
    --variant-secret) secret="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 --problem ID [--problems DIR] [--points N] [--variant-secret FILE]" \
            "[--out FILE]" >&2; exit 2 ;;
  esac
done
[[ -n "$problem" ]] || { echo "$0: needs --problem ID" >&2; exit 2; }
[[ -f "$problems/$problem.json" ]] || { echo "$0: no $problems/$problem.json" >&2; exit 2; }
[[ "$points" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "$0: --points must be a number" >&2; exit 2; }
if [[ -n "$secret" ]]; then
  # The rule headgrader applies (common/variant_secret_file.h), checked here so that a short
  # secret is found before the upload rather than at the first student's submission.
  /usr/bin/env python3 - "$secret" <<'PY' || exit 2
import sys
try:
    data = open(sys.argv[1], "rb").read()
except OSError as e:
    sys.exit(f"--variant-secret {sys.argv[1]}: the file cannot be read ({e.strerror})")
if data.endswith(b"\n"): data = data[:-1]
if data.endswith(b"\r"): data = data[:-1]
if len(data) < 32:
    sys.exit(f"--variant-secret {sys.argv[1]}: the secret is {len(data)} bytes, shorter than "
             "the 32 needed; e.g. head -c 32 /dev/urandom > FILE")
PY
fi
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$here/setup.sh" "$here/run_autograder" "$stage/"
printf 'HEADGRADER_PROBLEM=%q\nHEADGRADER_POINTS=%q\n' "$problem" "$points" > "$stage/headgrader.conf"
files=(setup.sh run_autograder headgrader.conf headgrader)
if [[ -n "$secret" ]]; then
  install -m 0600 "$secret" "$stage/variant-secret"
  echo "HEADGRADER_VARIANT_SECRET=variant-secret" >> "$stage/headgrader.conf"
  files+=(variant-secret)
fi
mkdir -p "$stage/headgrader/problems"
cp "$repo/CMakeLists.txt" "$stage/headgrader/"
cp -r "$repo/common" "$repo/include" "$repo/grader" "$repo/cli" "$stage/headgrader/"
cp "$problems"/*.json "$stage/headgrader/problems/"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
rm -f "$out"
(cd "$stage" && /usr/bin/env python3 -m zipfile -c "$out" "${files[@]}")
echo "wrote $out (problem $problem, $points points${secret:+, with a variant secret})"
