import BatonGtk
import Foundation

let options = TextEditorOptions.parseOrExit()
let status = MainActor.assumeIsolated {
    TextEditorApplication(options: options).run(arguments: [CommandLine.arguments[0]] + options.applicationArguments)
}
exit(status)
