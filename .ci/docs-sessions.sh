#!/usr/bin/env bash
# docs-sessions.sh runs the shell blocks of the repository's Markdown files,
# read from the files themselves so that the documents and this script
# cannot drift. Every shell block (```sh, bash, shell or console, or any
# block with a "$ " line) carries a mark on the line before it:
#
#   <!-- docs-sessions: run NAME -->   run with sh -eu from the repository
#       root; it must exit 0. "run NAME; in: beside" runs it instead in a
#       fresh folder beside a link ../hostbridge to this checkout, as a
#       user's module would be; "in: module" in such a module (go.mod
#       "module pages") beside the link.
#   <!-- docs-sessions: session NAME; unchecked: TEXT -->   a transcript:
#       its "$ " lines are run in one sh, in order, from the repository
#       root; the other lines are what each command prints on stdout ("…"
#       matches anything; "time=" lines are a host's log, on stderr, and not
#       compared; a command containing TEXT is run but its output not
#       compared).
#   <!-- needs a terminal: WHY -->   not run.
#
# README.md must stay the newcomer's page: at most 2000 words (wc -w).
# An unmarked shell block fails the script, as does a block that leaves a
# file in the work tree that git does not ignore. The cluster recipe's
# nats-server is the natsqueue module's own, built here and put first on
# PATH. DOCS_PORT_OFFSET (default 0) moves the hosts' ports 8787, 8788,
# 8789 and 8443 by that much, to run beside another host.
#
# Usage: .ci/docs-sessions.sh   (about a minute; needs curl and openssl)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
off=${DOCS_PORT_OFFSET:-0}
ports=""
for p in 8787 8788 8789 8443; do ports="$ports s/:$p\\b/:$((p + off))/g;"; done

# extract FILE…: one $work/b/N.{meta,txt} per marked block; unmarked ones
# are listed on stdout as FILE:LINE.
extract() {
	awk -v out="$work/b" '
	FNR == 1 { mark = ""; markline = -1 }
	!inb && /^<!-- (docs-sessions|needs a terminal)/ { mark = $0; markline = FNR; next }
	/^```/ {
		if (!inb) { inb = 1; info = substr($0, 4); start = FNR; body = ""; prompt = 0
			m = (markline == FNR - 1) ? mark : ""; next }
		inb = 0
		if (info !~ /^(sh|bash|shell|console)$/ && !prompt) next
		if (m == "") { print FILENAME ":" start; next }
		if (m ~ /needs a terminal/) next
		n++
		printf "%s\n%s:%d\n", m, FILENAME, start > (out "/" n ".meta")
		printf "%s", body > (out "/" n ".txt")
		close(out "/" n ".meta"); close(out "/" n ".txt")
		next
	}
	inb { body = body $0 "\n"; if ($0 ~ /^\$ /) prompt = 1 }
	' "$@"
}

# session FILE UNCHECKED: runs a transcript and compares what it prints.
session() {
	local txt=$1 unchecked=$2 k=0 cmd="" line
	local -a cmds=()
	: >"$work/script"
	rm -f "$work"/want.*
	while IFS= read -r line; do
		if [ -n "$cmd" ] && [[ $cmd == *\\ ]]; then
			cmd="$cmd"$'\n'"$line" cmds[k]=$cmd
			printf '%s\n' "$line" >>"$work/script"
			continue
		fi
		if [[ $line == '$ '* ]]; then
			k=$((k + 1)) cmd=${line#\$ }
			cmds[k]=$cmd
			printf 'echo "@@@ %d"\n%s\n' "$k" "$cmd" >>"$work/script"
			: >"$work/want.$k"
			if [ -n "$unchecked" ] && [[ $cmd == *"$unchecked"* ]]; then rm "$work/want.$k"; fi
		elif [[ $line != time=* ]] && [ -f "$work/want.$k" ]; then
			printf '%s\n' "$line" >>"$work/want.$k"
		fi
	done <"$txt"
	boxed sh "$work/script" >"$work/got" 2>"$work/err" || true
	awk -v d="$work" '/^@@@ [0-9]+$/ { f = d "/got." $2; printf "" > f; next } { print >> f }' "$work/got"
	local i ok=0
	for i in $(seq "$k"); do
		[ -f "$work/want.$i" ] || continue
		if ! same "$work/want.$i" "$work/got.$i"; then
			echo "command $i: ${cmds[i]}"
			echo "want:"; cat "$work/want.$i"; echo "got:"; cat "$work/got.$i" 2>/dev/null || true
			ok=1
		fi
	done
	[ "$ok" = 0 ] || { echo "stderr:"; tail -n 20 "$work/err"; }
	return "$ok"
}

# boxed CMD…: CMD under a 180 s timeout; timeout leads a process group of
# its own, which is killed afterwards, so nothing a block started outlives it.
boxed() {
	timeout 180 "$@" &
	local t=$! rc=0
	wait "$t" || rc=$?
	kill -- "-$t" 2>/dev/null || true
	return "$rc"
}

# place MARK: the folder a run block starts in (see "in:" above).
place() {
	local d
	case $1 in
	*"; in: beside"*) d=$(mktemp -d "$work/beside.XXXX") ;;
	*"; in: module"*) d=$(mktemp -d "$work/beside.XXXX")/pages
		mkdir "$d"; printf 'module pages\n\ngo 1.26\n' >"$d/go.mod" ;;
	*) pwd; return ;;
	esac
	ln -s "$PWD" "${d%/pages}/hostbridge"
	echo "$d"
}

# same WANT GOT: line by line, "…" in WANT matching anything.
same() {
	local -a want got
	mapfile -t want <"$1"
	mapfile -t got <"$2" 2>/dev/null || got=()
	[ "${#want[@]}" = "${#got[@]}" ] || return 1
	local i pat
	for i in "${!want[@]}"; do
		pat=$(printf '%s' "${want[$i]}" | sed 's/[][*?\\]/\\&/g; s/…/*/g')
		# shellcheck disable=SC2053
		[[ ${got[$i]} == $pat ]] || return 1
	done
}

words=$(wc -w <README.md)
if [ "$words" -gt 2000 ]; then echo "README.md has $words words, more than 2000"; exit 1; fi
(cd natsqueue && go build -o "$work/bin/nats-server" github.com/nats-io/nats-server/v2)
export PATH="$work/bin:$PATH"
mkdir "$work/b"
unmarked=$(extract $(git ls-files '*.md'))
if [ -n "$unmarked" ]; then
	echo "shell blocks without a docs-sessions or needs-a-terminal mark:"; echo "$unmarked"; exit 1
fi
before=$(git status --porcelain)
fail=0
for meta in "$work"/b/*.meta; do
	n=${meta%.meta}
	read -r mark <"$meta"
	where=$(sed -n 2p "$meta")
	sed -i "$ports" "$n.txt"
	start=$(date +%s)
	case $mark in
	*"docs-sessions: run "*)
		dir=$(place "$mark")
		if (cd "$dir" && boxed sh -eu "$n.txt") >"$work/out" 2>&1; then r=ok; else r="FAIL (exit $?)"; fi ;;
	*"docs-sessions: session "*)
		unchecked=$(printf '%s' "$mark" | sed -n 's/.*; unchecked: \(.*\) -->.*/\1/p')
		if session "$n.txt" "$unchecked" >"$work/out" 2>&1; then r=ok; else r=FAIL; fi ;;
	*) r="FAIL (unknown mark: $mark)" ;;
	esac
	echo "$where: $(printf '%s' "$mark" | sed 's/<!-- docs-sessions: //; s/;.*//; s/ -->//'): $r ($(($(date +%s) - start)) s)"
	if [ "$r" != ok ]; then cat "$work/out"; fail=1; fi
	if [ "$(git status --porcelain)" != "$before" ]; then
		echo "$where left files in the work tree:"; git status --porcelain; fail=1
		before=$(git status --porcelain)
	fi
done
exit "$fail"
