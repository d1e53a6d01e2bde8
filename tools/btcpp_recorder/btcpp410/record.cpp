// Records one conformance case with the real BehaviorTree.CPP (4.10.0), in the trace format
// of /work/shared/conformance/btcpp (see its README): one JSON object on stdout.
//
//   record CASE.xml [TICKS] [--once]
//
// TICKS: the number of tickExactlyOnce() calls (0 or absent: tick until the root is not
// RUNNING, at most 20). A throwing tick ends the case. --once ticks with tickOnce() instead
// and prints only {"roots": [...], "error": ..., "error_at": ...}.
//
// The Scripted leaf is an ActionNodeBase: every tick returns the next status of its
// `statuses` list (the last one repeats) and records ["tick", name, status]; halt() records
// ["halt", name] when the node is RUNNING (once per RUNNING tick). Its cursor is never reset.
// StatefulScripted (below) gives the same statuses from a StatefulActionNode.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "behaviortree_cpp/bt_factory.h"
#include "behaviortree_cpp/contrib/json.hpp"
#include "behaviortree_cpp/loggers/abstract_logger.h"
#include "behaviortree_cpp/utils/demangle_util.h"

using json = nlohmann::ordered_json;

namespace
{
json g_events = json::array();
json g_transitions = json::array();

// The statuses of one leaf: its `statuses` port read once, the next status on every call (the
// last one repeats), each recorded as ["tick", name, status]. Its cursor is never reset.
class StatusScript
{
public:
  BT::NodeStatus next(const BT::TreeNode& node)
  {
    if(seq_.empty())
    {
      std::string text = node.getInput<std::string>("statuses").value();
      for(char c : text)
      {
        if(c == 'S')
          seq_.push_back(BT::NodeStatus::SUCCESS);
        else if(c == 'F')
          seq_.push_back(BT::NodeStatus::FAILURE);
        else if(c == 'R')
          seq_.push_back(BT::NodeStatus::RUNNING);
        else if(c != ',' && c != ' ')
          throw BT::RuntimeError(node.registrationName(), ": bad status letter in '", text, "'");
      }
      if(seq_.empty())
        throw BT::RuntimeError(node.registrationName(), ": no status");
    }
    const auto st = seq_[std::min(cursor_, seq_.size() - 1)];
    cursor_++;
    g_events.push_back(json::array({ "tick", node.name(), BT::toStr(st) }));
    return st;
  }

private:
  std::vector<BT::NodeStatus> seq_;
  size_t cursor_ = 0;
};

BT::PortsList statusesPort()
{
  return { BT::InputPort<std::string>("statuses", "S", "scripted statuses") };
}

class Scripted : public BT::ActionNodeBase
{
public:
  Scripted(const std::string& name, const BT::NodeConfig& config)
    : BT::ActionNodeBase(name, config)
  {}

  static BT::PortsList providedPorts()
  {
    return statusesPort();
  }

  BT::NodeStatus tick() override
  {
    const auto st = script_.next(*this);
    running_ = (st == BT::NodeStatus::RUNNING);
    return st;
  }

  void halt() override
  {
    // BT.CPP may call halt() twice: a `_while` that turns false halts the node but leaves it
    // RUNNING, and its parent halts it again later; the leaf reports the first one only
    if(running_ && status() == BT::NodeStatus::RUNNING)
      g_events.push_back(json::array({ "halt", name() }));
    running_ = false;
  }

private:
  StatusScript script_;
  bool running_ = false;
};

// The same statuses from a StatefulActionNode (onStart from IDLE, onRunning while RUNNING;
// onHalted records ["halt", name]): its halt() resets the status at once, as soccerbt's
// StatefulActionNode (and every soccerbt action) does.
class StatefulScripted : public BT::StatefulActionNode
{
public:
  StatefulScripted(const std::string& name, const BT::NodeConfig& config)
    : BT::StatefulActionNode(name, config)
  {}

  static BT::PortsList providedPorts()
  {
    return statusesPort();
  }

  BT::NodeStatus onStart() override
  {
    return script_.next(*this);
  }
  BT::NodeStatus onRunning() override
  {
    return script_.next(*this);
  }
  void onHalted() override
  {
    g_events.push_back(json::array({ "halt", name() }));
  }

private:
  StatusScript script_;
};

class TransitionLogger : public BT::StatusChangeLogger
{
public:
  explicit TransitionLogger(BT::TreeNode* root) : BT::StatusChangeLogger(root) {}
  void callback(BT::Duration, const BT::TreeNode& node, BT::NodeStatus prev,
                BT::NodeStatus status) override
  {
    g_transitions.push_back(json::array(
        { node.name(), node.fullPath(), BT::toStr(prev), BT::toStr(status) }));
  }
  void flush() override {}
};

// a value as BT.CPP prints it: integers plainly, doubles with std::to_string, strings
// verbatim; null when empty or not printable (another type)
json printable(const BT::Any& any)
{
  if(any.empty())
    return nullptr;
  if(any.isString())
    return any.cast<std::string>();
  const auto& t = any.castedType();
  if(t == typeid(double))
    return std::to_string(any.cast<double>());
  if(t == typeid(int64_t))
    return std::to_string(any.cast<int64_t>());
  if(t == typeid(uint64_t))
    return std::to_string(any.cast<uint64_t>());
  if(t == typeid(bool))
    return std::to_string(any.cast<bool>() ? 1 : 0);
  if(auto s = any.tryCast<std::string>())
    return s.value();
  return nullptr;
}

json dump(const BT::Blackboard::Ptr& bb)
{
  std::vector<std::string> keys;
  for(const auto& k : bb->getKeys())
    keys.emplace_back(k);
  std::sort(keys.begin(), keys.end());
  json out = json::object();
  for(const auto& key : keys)
  {
    auto entry = bb->getEntry(key);
    if(!entry)
      continue;
    std::unique_lock lk(entry->entry_mutex);
    json e = json::object();
    e["value"] = printable(entry->value);
    e["type"] = entry->value.empty() ? BT::demangle(entry->info.type()) :
                                       BT::demangle(entry->value.type());
    e["entry_type"] = BT::demangle(entry->info.type());
    out[key] = e;
  }
  return out;
}
}  // namespace

int main(int argc, char** argv)
{
  std::string path;
  int ticks = 0;
  bool once = false;
  for(int i = 1; i < argc; i++)
  {
    std::string a = argv[i];
    if(a == "--once")
      once = true;
    else if(path.empty())
      path = a;
    else
      ticks = std::stoi(a);
  }
  if(path.empty())
  {
    std::cerr << "usage: record CASE.xml [TICKS] [--once]\n";
    return 2;
  }
  const int limit = ticks > 0 ? ticks : 20;

  BT::BehaviorTreeFactory factory;
  factory.registerNodeType<Scripted>("Scripted");
  factory.registerNodeType<StatefulScripted>("StatefulScripted");
  json trace = json::object();
  trace["tick_method"] = once ? "tickOnce" : "tickExactlyOnce";

  // keep the tree alive until the trace is printed: halts at destruction belong to no tick
  std::unique_ptr<BT::Tree> tree;
  try
  {
    tree = std::make_unique<BT::Tree>(factory.createTreeFromFile(path));
  }
  catch(const std::exception& ex)
  {
    trace["error"] = ex.what();
    trace["error_at"] = "load";
    if(once)
      trace["roots"] = json::array();
    else
      trace["ticks"] = json::array();
    std::cout << trace.dump(1) << std::endl;
    return 0;
  }

  if(once)
  {
    json roots = json::array();
    for(int n = 1; n <= limit; n++)
    {
      try
      {
        const auto st = tree->tickOnce();
        roots.push_back(BT::toStr(st));
        if(ticks == 0 && st != BT::NodeStatus::RUNNING)
          break;
      }
      catch(const std::exception& ex)
      {
        roots.push_back(nullptr);
        trace["error"] = ex.what();
        trace["error_at"] = n;
        break;
      }
    }
    trace["roots"] = roots;
    std::cout << trace.dump(1) << std::endl;
    return 0;
  }

  auto root_bb = tree->rootBlackboard();
  trace["blackboard_initial"] = dump(root_bb);
  TransitionLogger logger(tree->rootNode());
  json steps = json::array();
  for(int n = 1; n <= limit; n++)
  {
    g_events = json::array();
    g_transitions = json::array();
    json step = json::object();
    step["tick"] = n;
    bool failed = false;
    std::string error;
    try
    {
      const auto st = tree->tickExactlyOnce();
      step["root"] = BT::toStr(st);
    }
    catch(const std::exception& ex)
    {
      failed = true;
      error = ex.what();
      step["root"] = nullptr;
      step["error"] = error;
    }
    step["events"] = g_events;
    step["blackboard"] = dump(root_bb);
    if(tree->subtrees.size() > 1)
    {
      json subs = json::object();
      for(size_t i = 1; i < tree->subtrees.size(); i++)
        subs[tree->subtrees[i]->instance_name] = dump(tree->subtrees[i]->blackboard);
      step["subtree_blackboards"] = subs;
    }
    step["transitions"] = g_transitions;
    steps.push_back(step);
    if(failed)
    {
      trace["error"] = error;
      trace["error_at"] = n;
      break;
    }
    if(ticks == 0 && step["root"] != "RUNNING")
      break;
  }
  trace["ticks"] = steps;
  std::cout << trace.dump(1) << std::endl;
  return 0;
}
