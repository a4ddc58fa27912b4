import BatonGtk
import Foundation

let options = MailComposerOptions.parseOrExit()
let status = MainActor.assumeIsolated {
    MailApplication(options: options).run(arguments: [CommandLine.arguments[0]] + options.applicationArguments)
}
exit(status)
