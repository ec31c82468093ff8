#!/usr/bin/env bash
# A backup of a deployment on PostgreSQL and S3 (docs/operations.md, "Backups and restores"):
# the database first, then the bucket's objects. Blobs are written before a row names them, so
# every blob the dump names is in the bucket when it is copied afterwards.
# Usage: scripts/backup-postgres-s3.sh <empty folder>, with the server's RDP_DATABASE_URL,
# RDP_DATABASE_SCHEMA_PREFIX, RDP_S3_BUCKET and (if set) RDP_S3_ENDPOINT, RDP_S3_REGION,
# RDP_S3_ACCESS_KEY_ID and RDP_S3_SECRET_ACCESS_KEY. Needs pg_dump and the aws command line.
set -euo pipefail
dir=${1:?usage: backup-postgres-s3.sh <empty folder>}
: "${RDP_DATABASE_URL:?RDP_DATABASE_URL names the database}" "${RDP_S3_BUCKET:?RDP_S3_BUCKET names the bucket}"
mkdir -p "$dir"
if [ -n "$(ls -A "$dir")" ]; then echo "backup: $dir is not empty" >&2; exit 1; fi
prefix=${RDP_DATABASE_SCHEMA_PREFIX:-rdp}
export AWS_ACCESS_KEY_ID=${RDP_S3_ACCESS_KEY_ID:-${AWS_ACCESS_KEY_ID:-}}
export AWS_SECRET_ACCESS_KEY=${RDP_S3_SECRET_ACCESS_KEY:-${AWS_SECRET_ACCESS_KEY:-}}
export AWS_DEFAULT_REGION=${RDP_S3_REGION:-${AWS_DEFAULT_REGION:-us-east-1}}
endpoint=()
if [ -n "${RDP_S3_ENDPOINT:-}" ]; then endpoint=(--endpoint-url "$RDP_S3_ENDPOINT"); fi

# 1. One consistent snapshot of the stores' schemas and the job queue's (pg_dump reads in one
#    transaction; the server keeps writing), with pg_trgm, which name search's indexes use.
pg_dump --format=custom --no-owner --schema="${prefix}_*" --extension=pg_trgm \
  --file="$dir/database.dump" "$RDP_DATABASE_URL"
# 2. Then the objects: whatever the dump names, and what was written since (unnamed, harmless).
aws s3 sync "s3://$RDP_S3_BUCKET" "$dir/objects" "${endpoint[@]}" --only-show-errors
echo "backup: $dir/database.dump and $dir/objects"
