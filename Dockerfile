# arcpath server image: Node (for npm) + the Deno binary npm installs.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
EXPOSE 50051
VOLUME ["/data"]
ENV ARCPATH_LISTEN=0.0.0.0:50051 ARCPATH_DATA=/data
CMD ["node_modules/.bin/deno", "run", "-A", "src/main.ts"]
