# atoll-server and the atoll CLI.
#   build stage: Debian 12 with the -dev packages from scripts/setup --server
#   runtime:     bookworm-slim with only the two binaries and the shared
#                libraries they load (found with ldd), run as a non-root user
FROM debian:bookworm AS build
COPY scripts/setup /src/scripts/setup
RUN /src/scripts/setup --server
COPY . /src
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DATOLL_BUILD_TESTS=OFF -DATOLL_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target atoll-server atoll \
 && mkdir -p /out/bin /out/lib \
 && cp /build/bin/atoll-server /build/bin/atoll /out/bin/ \
 && ldd /out/bin/atoll-server /out/bin/atoll \
      | awk '/=> \// {print $3}' | sort -u \
      | grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' \
      | xargs -I{} cp -L {} /out/lib/

FROM debian:bookworm-slim
COPY --from=build /out/bin/ /usr/local/bin/
COPY --from=build /out/lib/ /usr/local/lib/atoll/
RUN echo /usr/local/lib/atoll > /etc/ld.so.conf.d/atoll.conf && ldconfig \
 && useradd --system --uid 10001 --create-home --home-dir /var/lib/atoll atoll \
 && mkdir /var/lib/atoll/data && chown atoll:atoll /var/lib/atoll/data
USER atoll
WORKDIR /var/lib/atoll
EXPOSE 50051
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["atoll", "health", "--server=127.0.0.1:50051", "--timeout=2s"]
# Recordings (--data_dir) belong on a volume: mounted here, a new container
# restores every world (deploy/docker-compose.yml, deploy/kubernetes).
VOLUME /var/lib/atoll/data
ENTRYPOINT ["atoll-server"]
CMD ["--listen=0.0.0.0:50051"]
