# arcpath server image: Node 22 LTS (only for npm install; the README says Node >= 20) + the Deno binary npm
# installs (the server runs on Deno).
FROM node:22-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
EXPOSE 50051
VOLUME ["/data"]
ENV ARCPATH_LISTEN=0.0.0.0:50051 ARCPATH_DATA=/data
CMD ["node_modules/.bin/deno", "run", "-A", "--v8-flags=--no-memory-pool-share-memory-on-teardown", "src/main.ts"]
