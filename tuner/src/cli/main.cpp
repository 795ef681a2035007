// csumtune: generate, verify, measure and tune Internet-checksum loops for this CPU.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/gen/version.hpp"
#include "csumtune/jit.hpp"
#include "measure/kernel_source.hpp"

int main(int argc, char** argv) {
  CLI::App app{"csumtune: tune x86-64 Internet-checksum (csum_partial) loops for this CPU"};
  int exitCode = 0;
  csumtune::cli::addAllCommands(app, exitCode);

  // A feature mask that masks nothing would make a test pass for the wrong reason.
  if (const auto unknown = csumtune::unknownDisabledFeatures(); !unknown.empty()) {
    std::string known;
    for (const auto& f : csumtune::hostCpu().features)
      known += (known.empty() ? "" : ", ") + f.name;
    std::string names;
    for (const auto& name : unknown) {
      for (unsigned char c : name) names += (c < 0x20 || c >= 0x7f) ? '?' : static_cast<char>(c);
      names += ' ';
    }
    std::cerr << "csumtune: CSUMTUNE_DISABLE_FEATURES names what is not a feature: " << names
              << "(known: " << known << ")\n";
    return 2;
  }

  // A bare `csumtune` is someone finding their way: the verb list, not an error.
  if (argc == 1) {
    std::cout << app.help();
    return 0;
  }

  // An unknown verb is named, not reported as a missing one.
  if (argc > 1 && argv[1][0] != '-') {
    std::string verbs;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->get_name() == argv[1];
      verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "csumtune: unknown command '" << argv[1] << "' (expected " << verbs << ")\n";
      return 2;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Success&) {
    return 0;  // an option that did its job and ends the program (tune --list-algorithms)
  } catch (const CLI::ParseError& e) {
    std::cerr << "csumtune: " << e.what() << "\n(see csumtune --help)\n";
    return 2;
  } catch (const csumtune::tuner::BadRequest& e) {
    std::cerr << "csumtune: " << e.what() << "\n";
    return 2;
  } catch (const csumtune::Error& e) {
    std::cerr << "csumtune: " << e.what() << "\n";
    return e.kind() == csumtune::Error::Kind::Codegen ? 1 : 2;
  } catch (const csumtune::tuner::SourceBaselineWrong& e) {
    std::cerr << "csumtune: " << e.what() << "\n";
    return 1;  // the file built and ran: its sums are wrong, a failed check
  } catch (const csumtune::tuner::SourceBaselineError& e) {
    std::cerr << "csumtune: " << e.what() << "\n";
    return 2;
  } catch (const csumtune::tuner::FileError& e) {
    std::cerr << "csumtune: " << e.what() << "\n";
    return 2;
  } catch (const csumtune::tuner::CheckFailed& e) {
    std::cerr << "csumtune: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "csumtune: internal error: " << e.what() << "\n";
    return 1;
  }
  // Whatever a verb printed must have reached its destination: a full disk or /dev/full is
  // an error, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "csumtune: cannot write to standard output: " << std::strerror(errno) << "\n";
    return 2;
  }
  return exitCode;
}
