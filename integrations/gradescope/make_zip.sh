#!/usr/bin/env bash
# Makes the zip to upload as a Gradescope "programming assignment" autograder:
#   integrations/gradescope/make_zip.sh --problem ID [--problems DIR] [--points N] [--out FILE]
# It holds, at the root of the archive (as Gradescope requires): setup.sh, run_autograder,
# headgrader.conf (the problem and points), and headgrader/ (the foundation's, the engine's and
# the CLI's sources and the problems of DIR, default the bundled problems/). The problem is
# checked before anything is written. Needs only bash and python3 (its zipfile module).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
problem="" problems="$repo/problems" points=1 out="headgrader-gradescope.zip"
while (($#)); do
  case "$1" in
    --problem) problem="$2"; shift 2 ;;
    --problems) problems="$2"; shift 2 ;;
    --points) points="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 --problem ID [--problems DIR] [--points N] [--out FILE]" >&2; exit 2 ;;
  esac
done
[[ -n "$problem" ]] || { echo "$0: needs --problem ID" >&2; exit 2; }
[[ -f "$problems/$problem.json" ]] || { echo "$0: no $problems/$problem.json" >&2; exit 2; }
[[ "$points" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "$0: --points must be a number" >&2; exit 2; }
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
install -m 0755 "$here/setup.sh" "$here/run_autograder" "$stage/"
printf 'HEADGRADER_PROBLEM=%q\nHEADGRADER_POINTS=%q\n' "$problem" "$points" > "$stage/headgrader.conf"
mkdir -p "$stage/headgrader/problems"
cp "$repo/CMakeLists.txt" "$stage/headgrader/"
cp -r "$repo/common" "$repo/include" "$repo/grader" "$repo/cli" "$stage/headgrader/"
cp "$problems"/*.json "$stage/headgrader/problems/"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
rm -f "$out"
(cd "$stage" && /usr/bin/env python3 -m zipfile -c "$out" setup.sh run_autograder headgrader.conf headgrader)
echo "wrote $out (problem $problem, $points points)"
