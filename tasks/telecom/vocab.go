package telecom

import "arew/tasks"

// maxLines is the number of line-id tokens in the vocabulary; Config.Lines
// may use fewer.
const maxLines = 8

// op is an agent tool, a device action of the user, or a closing action.
type op uint8

const (
	// Account tools (the agent's in both settings); each takes the line id.
	opLine    op = iota // read: line status, roaming on the line, location
	opUsage             // read: data allowance, plan
	opTopup             // write: add prepaid credit (resumes a suspended line; a charge)
	opRefuel            // write: buy extra data (a charge; error on a voice plan)
	opRoaming           // write: enable roaming on the line (error if already on)
	opPlan              // write: move the line one plan up (error at the top plan)
	opNewsim            // write: issue a new SIM, deactivating the old (error if one is pending)
	// Device actions (the agent's tools in solo, the user's in dual).
	opBar      // read: the phone's status bar
	opSettings // read: airplane mode, mobile data, data roaming switches
	opTest     // read: a connectivity test (the symptom)
	opAirplane // write: toggle airplane mode
	opData     // write: toggle mobile data
	opDroam    // write: toggle data roaming
	opReseat   // write: take the SIM out and put it (or the new one) back
	opRestart  // write: restart the phone (changes nothing here)
	// Closing actions: end the conversation.
	opDone
	opTransfer
	numOps
)

var opNames = [numOps]string{
	"line", "usage", "topup", "refuel", "roaming", "plan", "newsim",
	"bar", "settings", "test", "airplane", "data", "droam", "reseat", "restart",
	"done", "transfer",
}

func (o op) String() string { return opNames[o] }
func (o op) account() bool  { return o <= opNewsim }
func (o op) device() bool   { return o >= opBar && o <= opRestart }
func (o op) close() bool    { return o == opDone || o == opTransfer }
func (o op) read() bool {
	return o == opLine || o == opUsage || o == opBar || o == opSettings || o == opTest
}
func (o op) write() bool { return !o.read() && !o.close() }

// Words of the vocabulary, grouped as NewVocab receives them.
var (
	headerWords  = []string{"act", "last"} // the next turn is an ordinary one / the last one
	settingWords = []string{"solo", "dual"}
	symptomWords = []string{"no-service", "no-data", "works"}
	lineWords    = tasks.Prefixed("L", maxLines)
	sayWords     = []string{"say"}
	replyWords   = []string{"ok", "err", "invalid", "repeat"}
	// Values in read results; the position in the reply tells the field.
	valueWords = []string{
		"active", "suspended", "on", "off", "home", "abroad", // line; settings use on/off
		"left", "out", "none", "voice", "basic", "premium", // usage
		"plane", "nosim", "nobars", "sos", "bars", // status bar
	}
)

// vocabGroups are the word groups of the plain layout, in order.
func vocabGroups() [][]string {
	return [][]string{headerWords, settingWords, symptomWords, lineWords, opNames[:], sayWords, replyWords, valueWords}
}

// vocabulary is shared by every setting: one token set, so one model can
// play both solo and dual. A style appends its two tokens (Task.vocab), so
// every id here is the same under a style.
var vocabulary = tasks.NewVocab(vocabGroups()...)

// word ids used by the simulator, resolved once.
var (
	tokAct, tokLast               = vocabulary.ID("act"), vocabulary.ID("last")
	tokSay                        = vocabulary.ID("say")
	tokOK, tokErr                 = vocabulary.ID("ok"), vocabulary.ID("err")
	tokInvalid, tokRepeat         = vocabulary.ID("invalid"), vocabulary.ID("repeat")
	tokOn, tokOff                 = vocabulary.ID("on"), vocabulary.ID("off")
	tokActive, tokSuspended       = vocabulary.ID("active"), vocabulary.ID("suspended")
	tokHome, tokAbroad            = vocabulary.ID("home"), vocabulary.ID("abroad")
	tokLeft, tokOut, tokNone      = vocabulary.ID("left"), vocabulary.ID("out"), vocabulary.ID("none")
	tokPlan                       = [3]tasks.Token{vocabulary.ID("voice"), vocabulary.ID("basic"), vocabulary.ID("premium")}
	tokPlane, tokNoSIM, tokNoBars = vocabulary.ID("plane"), vocabulary.ID("nosim"), vocabulary.ID("nobars")
	tokSOS, tokBars               = vocabulary.ID("sos"), vocabulary.ID("bars")
	tokSymptom                    = [3]tasks.Token{vocabulary.ID("no-service"), vocabulary.ID("no-data"), vocabulary.ID("works")}
	tokSetting                    = [2]tasks.Token{vocabulary.ID("solo"), vocabulary.ID("dual")}
	tokFirstLine                  = vocabulary.ID("L0")
	tokFirstOp                    = vocabulary.ID(opNames[0])
)

func opToken(o op) tasks.Token    { return tokFirstOp + tasks.Token(o) }
func lineToken(l int) tasks.Token { return tokFirstLine + tasks.Token(l) }
func onOff(b bool) tasks.Token {
	if b {
		return tokOn
	}
	return tokOff
}
