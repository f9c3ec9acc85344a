#!/bin/sh
# Installs postern-client, the command with which scripts and servers sign in to Postern with an API
# key. The Postern server serves this script at /api/agent/install-client.sh with its public URL
# (POSTERN_PUBLIC_URL) and the client bundle's SHA-256 filled in:
#
#   curl -fsSL https://postern.example/api/agent/install-client.sh | sudo sh
#
# A server without POSTERN_PUBLIC_URL fills in no address: then run it with
# `sudo sh -s -- --server https://postern.example`.
#
# It takes no key: the key goes in with `postern-client init --key-stdin` afterwards, so it never
# appears in a command line, the shell history or this script's output.
# The whole script is one brace group, which sh reads to its closing brace before it runs any of it:
# piped from curl, a download cut short runs nothing rather than half a script, and an early exit
# never leaves curl writing into a closed pipe ("curl: (23) Failed writing body").
{
set -eu

# Filled in by the server (apps/server/src/agents/install-script.ts); each value is validated there.
# The default server is the server's POSTERN_PUBLIC_URL, or empty when it has none: then --server is
# required, since the server does not guess its own address from a request.
DEFAULT_SERVER_URL='@POSTERN_SERVER_URL@'
BUNDLE_SHA256='@POSTERN_CLIENT_SHA256@'
POSTERN_VERSION='@POSTERN_VERSION@'

MIN_NODE_MAJOR=20
# Paths as the installed client sees them; with --root they are created below that directory. The
# bundle sits beside the agent's (one directory for what Postern installs on a host).
INSTALL_DIR=/opt/postern-agent
BUNDLE=$INSTALL_DIR/postern-client.mjs
WRAPPER=/usr/local/bin/postern-client
CONFIG_DIR=/etc/postern-client
CONFIG_FILE=$CONFIG_DIR/config.json
KEY_FILE=$CONFIG_DIR/key

usage() {
  if [ -n "$DEFAULT_SERVER_URL" ]; then
    server_usage='[--server URL]'
    server_help="the Postern server (default: $DEFAULT_SERVER_URL)"
  else
    server_usage='--server URL'
    server_help='the Postern server (required: it has no POSTERN_PUBLIC_URL set)'
  fi
  cat <<EOF
Installs postern-client $POSTERN_VERSION.

Usage: sh install-client.sh $server_usage [--root DIR]

  --server URL   $server_help
  --root DIR     install below DIR instead of / (image builders, tests)

Needs Node.js $MIN_NODE_MAJOR or newer, and curl or wget. Writes $BUNDLE and the
command $WRAPPER, and, unless it exists, $CONFIG_FILE (mode 600) naming
the server. Then give the client its API key (scoped user.auth) as root:

  postern-client init --force --server URL --key-stdin

and open access with: postern-client login --knoc NAME
EOF
}

die() {
  printf 'postern-client install: %s\n' "$*" >&2
  exit 1
}

say() {
  printf '%s\n' "$*"
}

SERVER_URL=$DEFAULT_SERVER_URL
ROOT=/

while [ $# -gt 0 ]; do
  case $1 in
    --server)
      [ $# -ge 2 ] || die '--server needs a value'
      SERVER_URL=$2
      shift 2
      ;;
    --server=*)
      SERVER_URL=${1#--server=}
      shift
      ;;
    --root)
      [ $# -ge 2 ] || die '--root needs a value'
      ROOT=$2
      shift 2
      ;;
    --root=*)
      ROOT=${1#--root=}
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    -*) die "unknown option $1 (see --help)" ;;
    # Not echoed: a misplaced argument may well be a key.
    *) die 'unexpected argument (options are written --name value; see --help)' ;;
  esac
done

# ---- check the arguments ----

case $BUNDLE_SHA256 in
  @*) die 'this is the unfilled template; download the script from your Postern server (/api/agent/install-client.sh)' ;;
esac

[ -n "$SERVER_URL" ] ||
  die '--server URL is required: the Postern server has no POSTERN_PUBLIC_URL set, so this script does not know its address'

# The URL goes into a JSON file and a download command: only plain URL characters are accepted.
case $SERVER_URL in
  http://?* | https://?*) ;;
  *) die '--server must be an http:// or https:// URL' ;;
esac
case $SERVER_URL in
  *[!]A-Za-z0-9.:/_~%[-]*) die '--server has characters a server URL does not need (no quotes, spaces, ? or #)' ;;
esac
while :; do
  case $SERVER_URL in
    */) SERVER_URL=${SERVER_URL%/} ;;
    *) break ;;
  esac
done
case $SERVER_URL in
  http://localhost | http://localhost:* | http://127.* | 'http://[::1]' | 'http://[::1]:'*) ;;
  http://*) say 'warning: the server URL is plain http://; the API key will cross the network unencrypted' >&2 ;;
esac

case $ROOT in
  /*) ;;
  *) die '--root must be an absolute path' ;;
esac
[ -d "$ROOT" ] || die "--root $ROOT is not a directory"
# Prefix for every path written; empty when installing into the running system.
P=${ROOT%/}

if [ -z "$P" ] && [ "$(id -u)" != 0 ]; then
  die 'run this as root (for example: curl ... | sudo sh)'
fi

# ---- prerequisites ----

command -v node >/dev/null 2>&1 ||
  die "Node.js $MIN_NODE_MAJOR or newer is required and 'node' is not on the PATH. Install it (Debian/Ubuntu: apt-get install nodejs, if that gives $MIN_NODE_MAJOR or newer; otherwise see https://nodejs.org/en/download) and run this again."
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || die "'node' is on the PATH but does not run"
case $NODE_MAJOR in
  '' | *[!0-9]*) die "could not tell which Node.js version 'node' is" ;;
esac
[ "$NODE_MAJOR" -ge "$MIN_NODE_MAJOR" ] ||
  die "Node.js $MIN_NODE_MAJOR or newer is required; this host has $(node --version). Upgrade it and run this again."
# The wrapper runs this node by its full path: cron jobs and systemd units have a short PATH.
NODE_BIN=$(command -v node)
case $NODE_BIN in
  /*) ;;
  *) NODE_BIN=node ;;
esac

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=http,https' -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    die 'neither curl nor wget is installed; install one of them and run this again'
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    node -e 'const fs = require("fs"); const crypto = require("crypto");
process.stdout.write(crypto.createHash("sha256").update(fs.readFileSync(process.argv[1])).digest("hex"));' "$1"
  fi
}

# ---- the client bundle ----

mkdir -p "$P$INSTALL_DIR"
chmod 0755 "$P$INSTALL_DIR"
DOWNLOAD=$(mktemp "$P$INSTALL_DIR/.postern-client.mjs.XXXXXX")
trap 'rm -f "$DOWNLOAD"' EXIT
say "Downloading postern-client $POSTERN_VERSION from $SERVER_URL ..."
download "$SERVER_URL/api/agent/postern-client.mjs" "$DOWNLOAD" ||
  die "could not download $SERVER_URL/api/agent/postern-client.mjs"
GOT_SHA256=$(sha256_of "$DOWNLOAD")
[ "$GOT_SHA256" = "$BUNDLE_SHA256" ] ||
  die "the downloaded client does not match the checksum in this script (expected $BUNDLE_SHA256, got $GOT_SHA256); the server may have been upgraded meanwhile: download the script again"
chmod 0644 "$DOWNLOAD"
mv -f "$DOWNLOAD" "$P$BUNDLE"
INSTALLED_VERSION=$("$NODE_BIN" "$P$BUNDLE" --version) || die "the downloaded client does not run with $(node --version)"
say "Installed $BUNDLE ($INSTALLED_VERSION)"

# ---- the command ----

mkdir -p "$P$(dirname "$WRAPPER")"
cat >"$P$WRAPPER.new" <<EOF
#!/bin/sh
# Written by the Postern client installer ($POSTERN_VERSION); running it again replaces this file.
NODE='$NODE_BIN'
[ -x "\$NODE" ] || NODE=node
exec "\$NODE" $BUNDLE "\$@"
EOF
chmod 0755 "$P$WRAPPER.new"
mv -f "$P$WRAPPER.new" "$P$WRAPPER"
say "Wrote $WRAPPER"

# ---- configuration ----

# A config file an operator wrote (a knoc list, another key file) survives a reinstall. The client
# writes it itself, with mode 600 in a directory of mode 700; the key file it names does not exist yet.
if [ -e "$P$CONFIG_FILE" ]; then
  say "Kept $CONFIG_FILE"
else
  "$NODE_BIN" "$P$BUNDLE" init --config "$P$CONFIG_FILE" --server "$SERVER_URL" --key-file "$KEY_FILE" >/dev/null ||
    die "could not write $CONFIG_FILE"
  say "Wrote $CONFIG_FILE (mode 600) for $SERVER_URL"
fi

if [ -n "$P" ]; then
  say "Installed below $ROOT."
  exit 0
fi

say ''
say 'Next, give the client its API key (an API key scoped user.auth for an API-key user; it is read'
say 'from standard input and written to a file only root can read):'
say ''
say "  postern-client init --force --server $SERVER_URL --key-stdin"
say ''
say 'Then open access, for example: postern-client login --knoc "Backup DB"  (see postern-client --help)'
}
