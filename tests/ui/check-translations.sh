#!/bin/sh
# check-translations.sh SRCDIR: the translations are complete.
#   1. every file in po/POTFILES.in exists;
#   2. every source file with translatable strings is listed in it;
#   3. each catalogue in po/LINGUAS compiles with msgfmt --check and has no
#      untranslated or fuzzy message;
#   4. a template made now from the sources with xgettext (meson's "glib"
#      preset keywords) has no message that a catalogue lacks.
set -u
src=$1
po=$src/po
tmp=$(mktemp -d "${TMPDIR:-/tmp}/braggscope-po.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }

for tool in msgfmt xgettext msgcmp; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "1..0 # SKIP $tool not found (install gettext)"
    exit 0
  fi
done

grep -v '^#' "$po/POTFILES.in" | sed '/^$/d' >"$tmp/listed"

missing=
while read -r f; do
  [ -f "$src/$f" ] || missing="$missing $f"
done <"$tmp/listed"
if [ -z "$missing" ]; then ok "POTFILES.in lists existing files"; else not_ok "POTFILES.in lists missing files:$missing"; fi

# Files that hold translatable strings: gettext calls in C (the viewer's and
# libbraggscope-gtk's), translatable attributes in .ui files, and the desktop,
# metainfo and schema sources.
( cd "$src" && {
    grep -l -E '(^|[^A-Za-z0-9_])(_|N_|C_|NC_|g_dngettext) ?\(' ui/*.c plugin/gtk/*.c 2>/dev/null
    grep -l 'translatable="yes"' ui/*.ui 2>/dev/null
    ls data/*.desktop.in data/*.metainfo.xml.in data/*.gschema.xml 2>/dev/null
  } ) | sort -u >"$tmp/translatable"
unlisted=$(sort -u "$tmp/listed" | comm -23 "$tmp/translatable" -)
if [ -z "$unlisted" ]; then ok "every file with translatable strings is in POTFILES.in"; else not_ok "not in POTFILES.in: $unlisted"; fi

( cd "$src" && xgettext --package-name=braggscope --from-code=UTF-8 --add-comments \
    --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
    --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
    --flag=N_:1:pass-c-format --flag=C_:2:pass-c-format --flag=NC_:2:pass-c-format \
    --flag=g_dngettext:2:pass-c-format --flag=g_strdup_printf:1:c-format \
    --flag=g_string_printf:2:c-format --flag=g_string_append_printf:2:c-format \
    --flag=g_error_new:3:c-format --flag=g_set_error:4:c-format \
    --flag=g_printerr:1:c-format --flag=g_print:1:c-format \
    --files-from="$tmp/listed" -o "$tmp/braggscope.pot" ) 2>"$tmp/xgettext.log"
if [ -s "$tmp/braggscope.pot" ]; then
  ok "xgettext made a template of $(( $(grep -c "^msgid " "$tmp/braggscope.pot") - 1 )) messages"
else
  not_ok "xgettext failed: $(cat "$tmp/xgettext.log")"
fi

for lang in $(grep -v '^#' "$po/LINGUAS"); do
  file=$po/$lang.po
  if stats=$(msgfmt --check --statistics -o "$tmp/$lang.mo" "$file" 2>&1); then
    case $stats in
      *untranslated* | *fuzzy*) not_ok "$lang.po is incomplete: $stats" ;;
      *) ok "$lang.po: $stats" ;;
    esac
  else
    not_ok "$lang.po does not compile: $stats"
  fi
  if out=$(msgcmp "$file" "$tmp/braggscope.pot" 2>&1); then
    ok "$lang.po translates every message of the sources"
  else
    not_ok "$lang.po lacks messages of the sources: $out"
  fi
  obsolete=$(grep -c '^#~ msgid' "$file")
  if [ "$obsolete" -eq 0 ]; then ok "$lang.po has no obsolete messages"; else not_ok "$lang.po has $obsolete obsolete messages"; fi
done

echo "1..$n"
exit 0
