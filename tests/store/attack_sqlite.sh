#!/bin/bash
# Issue 18 as an attacker does it: a demo league (tokens, one revoked; a match in play),
# sealed, its head written down; then each attack edits a copy of the SQLite file with
# the sqlite3 shell (and, where hashes are recomputed, with kartludo's own published hash
# functions), and `kartludo verify --head HEAD` runs as a player holding the head would.
# Prints each attack's first BAD line and the counts (tried / caught).
#
#   tests/store/attack_sqlite.sh [path/to/kartludo]   (default: .venv/bin/kartludo)
set -u
K=$(realpath "${1:-.venv/bin/kartludo}")
PY=$(dirname "$K")/python
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export XDG_CONFIG_HOME=$WORK/cfg KARTLUDO_DB=sqlite:///$WORK/l.db
unset KARTLUDO_KEY KARTLUDO_SEAL_EVERY
$K key new >/dev/null
$K demo >/dev/null 2>&1 || { echo "demo failed"; exit 2; }
$K token new --role td --label mia >/dev/null
$K token revoke "$($K token new --role td --label old)" --reason lost >/dev/null
RUN=$($K match new uxinjo --players ann,bob,cy --seed 9)
$K match deal "$RUN" >/dev/null && $K act "$RUN" --as ann draw >/dev/null
$K standings >/dev/null  # the read models caught up, as a reader leaves them
HEAD=$($K seal --print)
cp l.db clean.db
FIN=$(sqlite3 clean.db "select stream_id from events where type like '%match-ended' order by position limit 1")
cat > rechain.py <<'PYEOF'
import sqlite3, sys
from kartludo.store.chain import link
from kartludo.store.eventstore import GENESIS, chain_hash
c = sqlite3.connect("l.db")
sid = c.execute("SELECT stream_id FROM events WHERE position = ?", (int(sys.argv[1]),)).fetchone()[0]
prev = GENESIS
for pos, s, ver, tag, sv, payload, rec, actor, cid in c.execute(
        "SELECT position, stream_id, version, type, schema_version, payload, recorded_at_us, actor, command_id "
        "FROM events WHERE stream_id = ? ORDER BY version", (sid,)).fetchall():
    digest = chain_hash(prev, s, ver, tag, sv, rec, actor, cid, bytes(payload))
    c.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE position = ?", (prev, digest, pos))
    prev = digest
if len(sys.argv) > 2:  # the global chain too, up to its old end
    end = c.execute("SELECT max(position) FROM chain").fetchone()[0]
    c.execute("DELETE FROM chain")
    head, n = GENESIS, 0
    for pos, s, ver, digest in c.execute("SELECT position, stream_id, version, hash FROM events "
                                         "WHERE position <= ? ORDER BY position", (end,)).fetchall():
        head, n = link(head, pos, bytes(digest)), n + 1
        c.execute("INSERT INTO chain (position, n, stream_id, version, hash) VALUES (?, ?, ?, ?, ?)",
                  (pos, n, s, ver, head))
c.commit()
PYEOF
tried=0; caught=0
attack() {  # NAME SQL [a shell command run after the SQL]
  cp clean.db l.db
  sqlite3 l.db "$2" || { echo "SQL failed: $1"; exit 2; }
  if [ -n "${3:-}" ]; then eval "$3" || { echo "post-edit failed: $1"; exit 2; }; fi
  tried=$((tried+1))
  out=$($K verify --head "$HEAD" 2>&1); rc=$?
  [ $rc -ne 0 ] && caught=$((caught+1))
  printf '%-58s rc=%d %s\n' "$1" $rc "$(echo "$out" | grep -m1 BAD | cut -c1-140)"
}
last_cmd="(select max(first_version) from commands where stream_id='$FIN')"
attack "delete the running match's newest event" \
  "delete from events where position=(select max(position) from events where stream_id='match-$RUN')"
attack "delete a finished match's newest 5 events (commands too)" \
  "delete from events where stream_id='$FIN' and version > (select max(version)-5 from events where stream_id='$FIN'); delete from commands where stream_id='$FIN' and last_version > (select max(version) from events where stream_id='$FIN')"
attack "delete a whole finished match" "delete from events where stream_id='$FIN'; delete from commands where stream_id='$FIN'"
attack "delete the newest 10 events overall" "delete from events where position > (select max(position)-10 from events)"
attack "delete the token revocation" "delete from events where type='token.revoked'; delete from commands where stream_id='tokens' and first_version=(select max(first_version) from commands where stream_id='tokens')"
attack "move an event to the end of the global order" "update events set position=(select max(position)+1000 from events) where position=(select max(position) from events where stream_id='$FIN')"
attack "edit an actor" "update events set actor='eve' where position=100"
attack "edit an actor, stream chain recomputed" "update events set actor='eve' where position=100" '$PY rechain.py 100'
attack "edit an actor, stream and global chains recomputed" "update events set actor='eve' where position=100" '$PY rechain.py 100 global'
attack "delete a commands row (a retry would apply twice)" "delete from commands where stream_id='$FIN' and first_version=$last_cmd"
attack "commands: a last_version changed" "update commands set last_version=last_version+1 where stream_id='$FIN' and first_version=$last_cmd"
attack "commands: a forged row" "insert into commands values ('$FIN','k1:forged',1,1)"
attack "delete the newest seal" "delete from seals where seq=(select max(seq) from seals)"
attack "delete the newest 3 events, their chain entries, newest seal" "delete from events where position > (select max(position)-3 from events); delete from chain where position > (select max(position) from events); delete from seals where seq=(select max(seq) from seals)"
attack "a seal's signature zeroed" "update seals set signature=zeroblob(64) where seq=5"
attack "one byte of a chain entry's stream id" "update chain set stream_id='x'||substr(stream_id,2) where position=500"
attack "a snapshot's player renamed (re-encoded)" "select 1 where 0" \
  '$PY -c "import sqlite3,msgspec;c=sqlite3.connect(\"l.db\");r=c.execute(\"select stream_id,code,version,state from snapshots order by version desc limit 1\").fetchone();d=msgspec.msgpack.decode(r[3]);d[0][\"players\"][0]=\"mallory\";c.execute(\"update snapshots set state=? where stream_id=? and code=? and version=?\",(msgspec.msgpack.encode(d),*r[:3]));c.commit()"'
attack "50 placement points added to a standings row" "update proj_results set placement_points=placement_points+50 where rowid=(select min(rowid) from proj_results)"
attack "the projection checkpoints moved past the end" "update projection_checkpoints set position=position+1000"
echo "sqlite3 attacks: $tried tried, $caught caught by verify --head"
[ "$tried" -eq "$caught" ]
