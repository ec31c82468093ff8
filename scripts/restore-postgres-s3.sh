#!/usr/bin/env bash
# Restores a backup of scripts/backup-postgres-s3.sh (docs/operations.md, "Backups and restores")
# into a new, empty database and an empty bucket, made beforehand: the objects first, then the
# database, so that no row is served before the blob it names. Then run `rdp admin verify`.
# Usage: scripts/restore-postgres-s3.sh <backup folder>, with the restored deployment's
# RDP_DATABASE_URL, RDP_DATABASE_SCHEMA_PREFIX (the backed-up one's), RDP_S3_BUCKET and the
# S3 settings as for the backup. Needs pg_restore, psql and the aws command line.
set -euo pipefail
dir=${1:?usage: restore-postgres-s3.sh <backup folder>}
: "${RDP_DATABASE_URL:?RDP_DATABASE_URL names the database}" "${RDP_S3_BUCKET:?RDP_S3_BUCKET names the bucket}"
[ -f "$dir/database.dump" ] && [ -d "$dir/objects" ] || { echo "restore: $dir holds no database.dump and objects" >&2; exit 1; }
prefix=${RDP_DATABASE_SCHEMA_PREFIX:-rdp}
export AWS_ACCESS_KEY_ID=${RDP_S3_ACCESS_KEY_ID:-${AWS_ACCESS_KEY_ID:-}}
export AWS_SECRET_ACCESS_KEY=${RDP_S3_SECRET_ACCESS_KEY:-${AWS_SECRET_ACCESS_KEY:-}}
export AWS_DEFAULT_REGION=${RDP_S3_REGION:-${AWS_DEFAULT_REGION:-us-east-1}}
endpoint=()
if [ -n "${RDP_S3_ENDPOINT:-}" ]; then endpoint=(--endpoint-url "$RDP_S3_ENDPOINT"); fi

existing=$(psql "$RDP_DATABASE_URL" -tAc "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '${prefix}\_%'")
if [ "$existing" != "0" ]; then echo "restore: the database already holds ${prefix}_ schemas" >&2; exit 1; fi
if [ -n "$(aws s3 ls "s3://$RDP_S3_BUCKET" "${endpoint[@]}" | head -1)" ]; then
  echo "restore: the bucket $RDP_S3_BUCKET is not empty" >&2; exit 1
fi
# 1. The objects.
aws s3 sync "$dir/objects" "s3://$RDP_S3_BUCKET" "${endpoint[@]}" --only-show-errors
# 2. The database, in one transaction: all of it or nothing.
pg_restore --no-owner --exit-on-error --single-transaction --dbname="$RDP_DATABASE_URL" "$dir/database.dump"
echo "restore: done; now run rdp admin verify"
