# pinbad in a container: build with Rust, run on Debian slim (glibc, matching the builder).
#   docker build --build-arg PINBAD_GIT_REV=$(git rev-parse --short=12 HEAD) -t pinbad .
#   docker run -p 30002:30002/udp -p 30080:30080 -v pinbad-state:/var/lib/pinbad pinbad
# The API then listens on 0.0.0.0 inside the container: set a token in the config
# (http.token_file) before publishing its port beyond this machine.
# The UDP receive buffer is capped by the host's net.core.rmem_max (the container has no
# CAP_NET_ADMIN): raise it on the host with contrib/sysctl/90-pinbad.conf.

FROM rust:1-bookworm AS build
WORKDIR /src
# Dependencies first, so a change to pinbad's own code does not rebuild them. Every target the
# manifest names must exist for cargo to read it: stubs, each [[bench]] by its name; and the
# crates it vendors (its path dependencies) with it.
COPY Cargo.toml Cargo.lock ./
COPY vendor vendor
RUN mkdir -p src/bin benches tests/integration \
    && echo 'fn main() {}' > src/main.rs \
    && echo 'fn main() {}' > src/bin/pinbad-blast.rs \
    && touch src/lib.rs tests/integration/main.rs \
    && for b in $(awk '/^\[\[bench\]\]/ { getline; gsub(/name = |"/, ""); print }' Cargo.toml); do \
         echo 'fn main() {}' > benches/$b.rs; done \
    && cargo build --release --locked --bin pinbad \
    && rm -rf src benches tests
# Every target the manifest names must exist, so benches and tests come along (unbuilt).
COPY build.rs ./
COPY src src
COPY benches benches
COPY tests tests
# .git is not copied in (.dockerignore): the revision comes from the build argument.
ARG PINBAD_GIT_REV=unknown
ENV PINBAD_GIT_REV=${PINBAD_GIT_REV}
RUN touch src/main.rs src/lib.rs && cargo build --release --locked --bin pinbad

FROM debian:bookworm-slim
COPY --from=build /src/target/release/pinbad /usr/local/bin/pinbad
COPY config/pinbad.toml /etc/pinbad/pinbad.toml
RUN useradd --system --no-create-home --shell /usr/sbin/nologin pinbad \
    && install -d -o pinbad -g pinbad -m 0700 /var/lib/pinbad
USER pinbad
ENV STATE_DIRECTORY=/var/lib/pinbad
VOLUME ["/var/lib/pinbad"]
EXPOSE 30002/udp 30080/tcp
ENTRYPOINT ["/usr/local/bin/pinbad", "--config", "/etc/pinbad/pinbad.toml"]
# IPv4 only (Docker networks often have no IPv6, where binding [::] would fail), the API
# reachable from outside the container.
CMD ["--udp", "0.0.0.0:30002", "--http", "0.0.0.0:30080"]
