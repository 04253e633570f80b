# The simulator runner's container image (the template's SimulatorImage).
#
#   infra/build-artifacts        # builds target/lambda/simulator-runner/bootstrap
#   docker build -f infra/simulator.Dockerfile -t alyt-simulator-runner .
#   # (with another CARGO_TARGET_DIR inside the context: --build-arg RUNNER=<dir>/lambda/simulator-runner/bootstrap)
#   # then push it to ECR and pass its URI as SimulatorImage (infra/README.md)
#
# The binary is linked by cargo-lambda with zig for glibc 2.26 or later, so
# any current glibc base runs it; Amazon Linux 2023 minimal carries the CA
# bundle the runner's TLS client trusts when it reaches IoT Core on 443.
FROM public.ecr.aws/amazonlinux/amazonlinux:2023-minimal
ARG RUNNER=target/lambda/simulator-runner/bootstrap
COPY ${RUNNER} /usr/local/bin/simulator-runner
# No root inside: the runner needs no privileges, only the network.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/simulator-runner"]
