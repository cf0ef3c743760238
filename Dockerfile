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
# glibc malloc: two arenas and trimming freed memory back to the system past 128 KB; with many threads
# (workers, I/O) freed map tables otherwise stay resident (README, Operations: resident memory).
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
CMD ["node_modules/.bin/deno", "run", "-A", "src/main.ts"]
