# One image for every healthmesh process (healthctl topology | edge | registry | probe run | apply ...).
# Build stage: the same Maven build as the README's, tests left to CI.
FROM maven:3.9.9-eclipse-temurin-17 AS build
# gcc: the edge's batched-UDP library (recvmmsg/sendmmsg); without it the edge falls back to NIO.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -DskipITs -pl cli -am package

FROM eclipse-temurin:17.0.13_11-jre-jammy
# curl for the compose healthchecks (GET /health/ready)
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /src/cli/target/healthctl.jar /app/healthctl.jar
COPY --from=build /src/cli/target/lib /app/lib
COPY examples /app/examples
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/app/healthctl.jar"]
CMD ["--help"]
