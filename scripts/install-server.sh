#!/bin/sh
# Installs, or upgrades in place, the Postern server as a systemd service on Debian. From a checkout:
#
#   sudo scripts/install-server.sh
#
# First run: the `postern` system user, /etc/postern/postern.env (settings, kept on upgrades),
# /var/lib/postern (the data directory), the built server in /opt/postern/app, the hardened unit
# postern.service and the `postern` command in /usr/local/bin; then it migrates and starts the service.
# Later runs upgrade: build, stop, replace the app (the previous one is kept as app.previous), migrate,
# start. See docs/install-and-backup.md.
#
# Options:
#   --root DIR   install below DIR instead of / (packaging and tests): files only; no user is made,
#                nothing is chowned, systemd is not touched
#   --no-build   use the build in the checkout as it is (npm run build was run already)
set -eu

ROOT=""
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { echo "postern-install: --root needs a directory" >&2; exit 2; }; ROOT=$2; shift 2 ;;
    --root=*) ROOT=${1#--root=}; shift ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "postern-install: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/postern
APP=$PREFIX/app
ETC=/etc/postern
ENV_FILE=$ETC/postern.env
DATA=/var/lib/postern
BACKUPS=/var/backups/postern
UNIT=/etc/systemd/system/postern.service
COMMAND=/usr/local/bin/postern
SERVICE_USER=postern

say() { printf 'postern-install: %s\n' "$*"; }
die() { printf 'postern-install: %s\n' "$*" >&2; exit 1; }
# A real install (not below --root): users, ownership and systemd are ours to change.
live() { [ -z "$ROOT" ]; }

if live; then
  [ "$(id -u)" -eq 0 ] || die "run as root: sudo $0"
  command -v systemctl >/dev/null 2>&1 || die "systemd is required (systemctl was not found)"
fi

NODE=${POSTERN_NODE:-$(command -v node || true)}
[ -n "$NODE" ] || die "Node.js 20.19 or newer is required (Debian: apt install nodejs, or NodeSource)"
"$NODE" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' ||
  die "Node.js 20.19 or newer is required; $NODE is $("$NODE" --version)"

# The build runs as the owner of the checkout, never as root in someone's home directory.
if [ "$BUILD" -eq 1 ]; then
  owner=$(stat -c %U "$SRC")
  if [ "$(id -u)" -eq 0 ] && [ "$owner" != root ]; then
    runuser -u "$owner" -- "$NODE" "$SRC/scripts/build.mjs" || die "the build failed"
  else
    "$NODE" "$SRC/scripts/build.mjs" || die "the build failed"
  fi
fi
for built in apps/server/dist/main.js apps/web/dist/index.html apps/agent/dist/postern-agent.mjs; do
  [ -f "$SRC/$built" ] || die "$SRC/$built is missing; run npm run build in $SRC first"
done

# --- The app: what the built server runs from, with only the server's production dependencies. ---
STAGE=$ROOT$PREFIX/app.new
rm -rf "$STAGE"
mkdir -p "$STAGE"
# Into the parent directory: a path copied again (a package inside one already copied) is merged, not nested.
copy() {
  mkdir -p "$STAGE/$(dirname "$1")"
  cp -a --reflink=auto "$SRC/$1" "$STAGE/$(dirname "$1")/"
}
for part in package.json packages/protocol/package.json packages/protocol/dist \
  apps/server/package.json apps/server/dist apps/web/package.json apps/web/dist \
  apps/agent/package.json apps/agent/dist apps/agent/install docs; do
  copy "$part"
done
# npm lists every package the server needs at run time (the workspace links included).
modules=$(cd "$SRC" && npm ls --omit=dev --all --parseable --workspace apps/server 2>/dev/null) ||
  die "npm could not list the server's dependencies; run npm ci in $SRC"
printf '%s\n' "$modules" | sed -n "s|^$SRC/node_modules/|node_modules/|p" | LC_ALL=C sort -u |
  while read -r module; do copy "$module"; done
[ -d "$STAGE/node_modules/fastify" ] || die "the server's dependencies were not copied"

# --- The user, directories, settings, unit and command. ---
if live; then
  if ! getent passwd "$SERVICE_USER" >/dev/null; then
    useradd --system --user-group --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
    say "created the system user $SERVICE_USER"
  fi
  OWNER="-o $SERVICE_USER -g $SERVICE_USER"
  ETC_OWNER="-o root -g $SERVICE_USER"
else
  OWNER=""
  ETC_OWNER=""
fi
# shellcheck disable=SC2086 # the owner options are words on purpose
install -d -m 0755 "$ROOT$PREFIX" "$ROOT$(dirname "$UNIT")" "$ROOT$(dirname "$COMMAND")"
# shellcheck disable=SC2086
install -d -m 0700 $OWNER "$ROOT$DATA" "$ROOT$BACKUPS"
# shellcheck disable=SC2086
install -d -m 0750 $ETC_OWNER "$ROOT$ETC"

if [ -e "$ROOT$ENV_FILE" ]; then
  say "kept the settings in $ENV_FILE"
else
  # Written under umask 027 and then set exactly: the file may come to hold DATABASE_URL's password.
  (umask 027 && cat >"$ROOT$ENV_FILE" <<EOF
# Postern server settings, read by postern.service and the postern command. Kept on upgrades.
# Every setting is in the README's Configuration section. After a change: systemctl restart postern
POSTERN_HOST=127.0.0.1
POSTERN_PORT=8080
POSTERN_DATA_DIR=$DATA
POSTERN_LOG_LEVEL=info
# The URL people use, when Postern is behind a TLS reverse proxy (list the proxy as trusted):
#POSTERN_PUBLIC_URL=https://access.example.com
#POSTERN_TRUSTED_PROXIES=127.0.0.1
# PostgreSQL instead of the embedded SQLite store (needed to run several servers):
#DATABASE_URL=postgres://postern:password@127.0.0.1:5432/postern
# The key that seals secrets at rest. Unset: $DATA/secret.key, made on the first start.
# Either way, back the key up apart from the store backups: without it they cannot be read.
#POSTERN_SECRET_KEY=
EOF
  )
  chmod 0640 "$ROOT$ENV_FILE"
  if live; then chown "root:$SERVICE_USER" "$ROOT$ENV_FILE"; fi
  say "wrote the settings to $ENV_FILE"
fi

cat >"$ROOT$UNIT" <<EOF
# Written by scripts/install-server.sh; an upgrade rewrites it. Local changes: systemctl edit postern
[Unit]
Description=Postern just-in-time network access portal
Documentation=file://$APP/docs/install-and-backup.md
Wants=network-online.target
After=network-online.target postgresql.service

[Service]
Type=simple
User=$SERVICE_USER
Group=$SERVICE_USER
EnvironmentFile=$ENV_FILE
WorkingDirectory=$APP
ExecStartPre=$NODE $APP/apps/server/dist/main.js migrate
ExecStart=$NODE $APP/apps/server/dist/main.js serve
Restart=on-failure
RestartSec=5s
# Settings a start cannot get past (exit code 2) wait for the operator instead of a restart loop.
RestartPreventExitStatus=2
TimeoutStopSec=30s
UMask=0077

# Hardening: the service writes only its data directory and sees no home directories or devices.
ReadWritePaths=$DATA
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
NoNewPrivileges=yes
# The only capability: binding ports below 1024 (the IP discovery responder's 443 and 222 by default,
# or the portal itself on 443). With POSTERN_IP_DISCOVERY_PORTS and POSTERN_PORT above 1023 it can go:
# systemctl edit postern, then CapabilityBoundingSet= and AmbientCapabilities= empty.
CapabilityBoundingSet=CAP_NET_BIND_SERVICE
AmbientCapabilities=CAP_NET_BIND_SERVICE
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
# AF_NETLINK: glibc's getaddrinfo asks the kernel which address families are configured.
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallErrorNumber=EPERM
# Not MemoryDenyWriteExecute: Node's JIT compiler needs writable and executable memory.

[Install]
WantedBy=multi-user.target
EOF
chmod 0644 "$ROOT$UNIT"

# The command line, as the service user with the service's settings: sudo postern backup …
cat >"$ROOT$COMMAND" <<EOF
#!/bin/sh
# Written by scripts/install-server.sh: runs the installed server's command line as the service user.
if [ "\$(id -u)" -eq 0 ]; then
  exec runuser -u $SERVICE_USER -- $NODE --env-file=$ENV_FILE $APP/apps/server/dist/main.js "\$@"
fi
exec $NODE --env-file=$ENV_FILE $APP/apps/server/dist/main.js "\$@"
EOF
chmod 0755 "$ROOT$COMMAND"

# --- Replace the app: stop, swap, migrate, start. ---
was_running=0
if live && systemctl is-active --quiet postern; then
  was_running=1
  say "stopping postern"
  systemctl stop postern
fi
rm -rf "$ROOT$PREFIX/app.previous"
if [ -d "$ROOT$APP" ]; then mv "$ROOT$APP" "$ROOT$PREFIX/app.previous"; fi
mv "$STAGE" "$ROOT$APP"
if live; then chown -R root:root "$ROOT$APP"; fi
say "installed $(cd "$ROOT$APP" && "$NODE" -p 'require("./package.json").version') in $APP"

if ! live; then
  say "files written below $ROOT (no user, ownership or systemd changes)"
  exit 0
fi

say "migrating the store"
runuser -u "$SERVICE_USER" -- "$NODE" "--env-file=$ENV_FILE" "$APP/apps/server/dist/main.js" migrate ||
  die "the migration failed; the service is stopped and the previous release is in $PREFIX/app.previous"
systemctl daemon-reload
systemctl enable --quiet postern
systemctl start postern
if [ "$was_running" -eq 1 ]; then
  say "upgraded and restarted postern"
else
  say "postern is running: systemctl status postern; settings in $ENV_FILE"
  say "the first administrator's password is in the journal once: journalctl -u postern -o cat | grep -A2 'shown only this once'"
fi
