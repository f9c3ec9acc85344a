#!/bin/sh
# Installs postern-agent as a systemd service. The Postern server serves this script at
# /api/agent/install.sh with its public URL (POSTERN_PUBLIC_URL) and the agent bundle's SHA-256
# filled in, so the admin console's one-liner is all it takes:
#
#   curl -fsSL https://postern.example/api/agent/install.sh | sudo sh -s -- --token TOKEN
#
# A server without POSTERN_PUBLIC_URL fills in no address: then add --server https://postern.example
# (the console's command does).
#
# It never prints the token: the token goes only into a file that root alone can read.
# The whole script is one brace group, which sh reads to its closing brace before it runs any of it:
# piped from curl, a download cut short runs nothing rather than half a script, and an early exit
# never leaves curl writing into a closed pipe ("curl: (23) Failed writing body").
{
set -eu

# Filled in by the server (apps/server/src/agents/install-script.ts); each value is validated there.
# The default server is the server's POSTERN_PUBLIC_URL, or empty when it has none: then --server is
# required, since the server does not guess its own address from a request.
DEFAULT_SERVER_URL='@POSTERN_SERVER_URL@'
BUNDLE_SHA256='@POSTERN_AGENT_SHA256@'
POSTERN_VERSION='@POSTERN_VERSION@'

MIN_NODE_MAJOR=20
TOKEN_MIN_LENGTH=20
# Paths as the installed service sees them; with --root they are created below that directory.
INSTALL_DIR=/opt/postern-agent
BUNDLE=$INSTALL_DIR/postern-agent.mjs
CONFIG_DIR=/etc/postern-agent
CONFIG_FILE=$CONFIG_DIR/config.json
TOKEN_FILE=$CONFIG_DIR/token
STATE_FILE=/var/lib/postern-agent/state.json
UNIT_FILE=/etc/systemd/system/postern-agent.service

usage() {
  if [ -n "$DEFAULT_SERVER_URL" ]; then
    server_usage='[--server URL]'
    server_help="the Postern server (default: $DEFAULT_SERVER_URL)"
  else
    server_usage='--server URL'
    server_help='the Postern server (required: it has no POSTERN_PUBLIC_URL set)'
  fi
  cat <<EOF
Installs postern-agent $POSTERN_VERSION as the systemd service postern-agent.

Usage: sh install.sh --token TOKEN $server_usage [--root DIR] [--no-start]

  --token TOKEN  the agent's token from the admin console (required)
  --server URL   $server_help
  --root DIR     install below DIR instead of / (image builders, tests); nothing is started
  --no-start     write the files but do not enable or start the service

Needs Node.js $MIN_NODE_MAJOR or newer, and curl or wget. Writes $BUNDLE,
$CONFIG_FILE, $TOKEN_FILE (mode 600) and $UNIT_FILE.
An existing $CONFIG_FILE keeps its other settings (ipset, haproxy, scripts).
The agent enrols with the token: its first start makes its key (agent-key.pem beside
$STATE_FILE), which a reinstall on this host keeps. On another host, rotate the
token in the admin console first and install with the new one.
EOF
}

die() {
  printf 'postern-agent install: %s\n' "$*" >&2
  exit 1
}

say() {
  printf '%s\n' "$*"
}

TOKEN=''
SERVER_URL=$DEFAULT_SERVER_URL
ROOT=/
START=yes

while [ $# -gt 0 ]; do
  case $1 in
    --token)
      [ $# -ge 2 ] || die '--token needs a value'
      TOKEN=$2
      shift 2
      ;;
    --token=*)
      TOKEN=${1#--token=}
      shift
      ;;
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
    --no-start)
      START=no
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    -*) die "unknown option $1 (see --help)" ;;
    # Not echoed: a misplaced argument may well be the token.
    *) die 'unexpected argument (options are written --name value; see --help)' ;;
  esac
done

# ---- check the arguments ----

[ -n "$TOKEN" ] || die '--token is required: copy the install command from the Agents page of the admin console'
case $TOKEN in
  *[!A-Za-z0-9_-]*) die 'the token is not a Postern agent token (it has characters tokens never have)' ;;
esac
[ "${#TOKEN}" -ge "$TOKEN_MIN_LENGTH" ] || die 'the token is too short to be a Postern agent token'

case $BUNDLE_SHA256 in
  @*) die 'this is the unfilled template; download the script from your Postern server (/api/agent/install.sh)' ;;
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
  http://*) say 'warning: the server URL is plain http://; the agent token will cross the network unencrypted' >&2 ;;
esac

case $ROOT in
  /*) ;;
  *) die '--root must be an absolute path' ;;
esac
[ -d "$ROOT" ] || die "--root $ROOT is not a directory"
# Prefix for every path written; empty when installing into the running system.
P=${ROOT%/}

if [ -z "$P" ] && [ "$(id -u)" != 0 ]; then
  die 'run this as root (for example: curl ... | sudo sh -s -- --token ...)'
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

# ---- the agent bundle ----

mkdir -p "$P$INSTALL_DIR"
chmod 0755 "$P$INSTALL_DIR"
DOWNLOAD=$(mktemp "$P$INSTALL_DIR/.postern-agent.mjs.XXXXXX")
trap 'rm -f "$DOWNLOAD"' EXIT
say "Downloading postern-agent $POSTERN_VERSION from $SERVER_URL ..."
download "$SERVER_URL/api/agent/postern-agent.mjs" "$DOWNLOAD" || die "could not download $SERVER_URL/api/agent/postern-agent.mjs"
GOT_SHA256=$(sha256_of "$DOWNLOAD")
[ "$GOT_SHA256" = "$BUNDLE_SHA256" ] ||
  die "the downloaded agent does not match the checksum in this script (expected $BUNDLE_SHA256, got $GOT_SHA256); the server may have been upgraded meanwhile: download the script again"
chmod 0644 "$DOWNLOAD"
mv -f "$DOWNLOAD" "$P$BUNDLE"
INSTALLED_VERSION=$(node "$P$BUNDLE" --version) || die "the downloaded agent does not run with $(node --version)"
say "Installed $BUNDLE ($INSTALLED_VERSION)"

# ---- configuration and token ----

# The token file: root only, in a directory only root can enter. printf is a shell builtin, so the
# token never shows in a process listing.
mkdir -p "$P$CONFIG_DIR"
chmod 0700 "$P$CONFIG_DIR"
(
  umask 077
  printf '%s\n' "$TOKEN" >"$P$TOKEN_FILE.new"
)
chmod 0600 "$P$TOKEN_FILE.new"
mv -f "$P$TOKEN_FILE.new" "$P$TOKEN_FILE"

# config.json: the server and the token file are ours to set; every other setting an operator added
# (ipset.allowedSets, haproxy.socket, scripts…) survives a reinstall.
# shellcheck disable=SC2016 # JavaScript template literals, not shell expansions.
node -e '
const fs = require("fs");
const [file, serverUrl, tokenFile, stateFile] = process.argv.slice(1);
let config = {};
if (fs.existsSync(file)) {
  try {
    config = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    console.error(`postern-agent install: ${file} is not valid JSON; fix or remove it and run this again`);
    process.exit(1);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    console.error(`postern-agent install: ${file} does not hold a JSON object; fix or remove it and run this again`);
    process.exit(1);
  }
}
config.serverUrl = serverUrl;
config.tokenFile = tokenFile;
delete config.token;
if (config.stateFile === undefined) config.stateFile = stateFile;
fs.writeFileSync(`${file}.new`, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o644 });
fs.renameSync(`${file}.new`, file);
' "$P$CONFIG_FILE" "$SERVER_URL" "$TOKEN_FILE" "$STATE_FILE"
say "Wrote $CONFIG_FILE and $TOKEN_FILE"

mkdir -p "$P/var/lib/postern-agent"
chmod 0700 "$P/var/lib/postern-agent"

# ---- the systemd unit ----

mkdir -p "$P/etc/systemd/system"
cat >"$P$UNIT_FILE.new" <<EOF
# Written by the Postern agent installer ($POSTERN_VERSION). Local changes belong in a drop-in:
# systemctl edit postern-agent
[Unit]
Description=Postern agent: applies just-in-time access grants to this host
Documentation=$SERVER_URL/
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
ExecStart=/usr/bin/env node $BUNDLE run --config $CONFIG_FILE
Restart=always
RestartSec=5
# Runs as root, but with only the capabilities its drivers need: ipset and nftables (NET_ADMIN,
# NET_RAW) and a knocproxy listening on a port below 1024 (NET_BIND_SERVICE).
CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE
NoNewPrivileges=yes
StateDirectory=postern-agent
StateDirectoryMode=0700
ProtectSystem=full
ProtectHome=read-only
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
# ipset talks to the kernel over netlink; the server and HAProxy over inet and unix sockets.
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
SystemCallArchitectures=native
UMask=0077

[Install]
WantedBy=multi-user.target
EOF
chmod 0644 "$P$UNIT_FILE.new"
mv -f "$P$UNIT_FILE.new" "$P$UNIT_FILE"
say "Wrote $UNIT_FILE"

# ---- start ----

if [ -n "$P" ]; then
  say "Installed below $ROOT; nothing was started there. On that system: systemctl enable --now postern-agent"
  exit 0
fi

node "$BUNDLE" check-config --config "$CONFIG_FILE" >/dev/null ||
  die "the agent refused its configuration $CONFIG_FILE (see above)"

if [ "$START" = no ]; then
  say 'Not started (--no-start). Start it with: systemctl enable --now postern-agent'
elif command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  # restart rather than start: on a reinstall the running agent must pick up the new bundle and token.
  systemctl daemon-reload || die 'systemctl daemon-reload failed'
  systemctl enable postern-agent || die 'systemctl enable postern-agent failed'
  systemctl restart postern-agent || die 'postern-agent did not start; see journalctl -u postern-agent'
  say 'postern-agent is running: systemctl status postern-agent; logs: journalctl -u postern-agent'
else
  say "systemd is not running here; start the agent with your service manager: node $BUNDLE run --config $CONFIG_FILE"
fi
}
