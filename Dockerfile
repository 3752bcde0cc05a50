# Chorus in a container: the release-folder layout of docs/guide/updates.md under /opt/chorus
# (versions/<v>, current → it, data/ a volume), run as the unprivileged `node` user.
# Build: docker compose build (or docker build -t chorus .). See docs/guide/container.md.

# --- build: the release archive from this tree (npm run release), unpacked and installed ---
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles when no prebuilt binary fits; git dates the release (SOURCE_DATE_EPOCH).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run release -- --out /release \
 && VERSION="$(node -p "require('./package.json').version")" \
 && mkdir -p /opt/chorus/versions /opt/chorus/data \
 && tar -xzf "/release/chorus-$VERSION.tar.gz" -C /opt/chorus/versions \
 && mv "/opt/chorus/versions/chorus-$VERSION" "/opt/chorus/versions/$VERSION" \
 && cd "/opt/chorus/versions/$VERSION" \
 && npm ci --omit=dev --no-audit --no-fund \
 && ln -s "versions/$VERSION" /opt/chorus/current

# --- runtime: Node and the release folder, nothing else ---
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    CHORUS_HOST=0.0.0.0 \
    CHORUS_PORT=8088 \
    CHORUS_DEPLOYMENT=container
COPY --from=build --chown=node:node /opt/chorus /opt/chorus
USER node
WORKDIR /opt/chorus
VOLUME ["/opt/chorus/data"]
EXPOSE 8088
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.CHORUS_PORT||8088)+(process.env.CHORUS_BASE_URL||'/chorus').replace(/\\/$/,'')+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# chorus serve handles SIGTERM itself: it stops the service, drains its queues and exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "/opt/chorus/current/bin/chorus.js", "serve", "--project-dir", "/opt/chorus"]
