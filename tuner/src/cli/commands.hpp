// Each verb of the csumtune command line registers itself on the CLI11 app.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "request_errors.hpp"

namespace csumtune::cli {

void addCpuCommand(CLI::App& app);
void addVerifyCommand(CLI::App& app);
void addEmitCommand(CLI::App& app);
void addBenchCommand(CLI::App& app);
void addKmodCommand(CLI::App& app);
void addPatchCommand(CLI::App& app, int& exitCode);
void addShowCommand(CLI::App& app);
void addMergeCommand(CLI::App& app);
// Sets exitCode (130 when interrupted and saved).
void addTuneCommand(CLI::App& app, int& exitCode);

// `csumtune show FILE` without the command line (the fuzz target calls it): prints the
// summary on stdout; tuner::BadRequest or csumtune::Error for bad input.
void runShow(const std::string& path);

// When set, every verb parses and validates its options but does nothing (the argument
// parser's fuzz target).
bool& dryRun();

// The whole command line: every verb, --version; exitCode as addTuneCommand sets it.
void addAllCommands(CLI::App& app, int& exitCode);

}  // namespace csumtune::cli
